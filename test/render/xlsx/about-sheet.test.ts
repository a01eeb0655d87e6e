import type ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { REJECTED_COLUMNS } from '../../../src/domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../../src/domain/summary-columns.js';
import { ShiftExportError } from '../../../src/errors.js';
import { BUSINESS_DATE_RULE, formatInstantInZone } from '../../../src/render/xlsx/about-sheet.js';
import { about } from './shift-fixtures.js';
import { readWorkbook, renderWorkbook, rowValues, sheet } from './workbook-io.js';

describe('formatInstantInZone', () => {
  const instant = new Date(Date.UTC(2024, 4, 8, 4, 0, 0));

  it('shows the wall clock and offset of the named zone', () => {
    expect(formatInstantInZone(instant, 'Europe/Berlin')).toBe('2024-05-08 06:00:00 +02:00 (Europe/Berlin)');
    expect(formatInstantInZone(instant, 'Asia/Kathmandu')).toBe(
      '2024-05-08 09:45:00 +05:45 (Asia/Kathmandu)',
    );
    expect(formatInstantInZone(instant, 'UTC')).toBe('2024-05-08 04:00:00 +00:00 (UTC)');
  });

  it('rejects a name that is not a time zone with a config error', () => {
    expect(() => formatInstantInZone(instant, 'Mars/Olympus')).toThrow(ShiftExportError);
  });
});

describe('the About sheet', () => {
  let aboutSheet: ExcelJS.Worksheet;
  let rows: unknown[][];

  const find = (label: string): unknown[] => {
    const row = rows.find((values) => values[0] === label);
    if (row === undefined) throw new Error(`no About row "${label}"`);
    return row;
  };

  beforeAll(async () => {
    const workbook = await readWorkbook(await renderWorkbook({ options: { sheetRowLimit: 1000 } }));
    aboutSheet = sheet(workbook, 'About');
    rows = Array.from({ length: aboutSheet.rowCount }, (_, i) => rowValues(aboutSheet, i + 1));
  });

  it('states the period as dates and the business-date rule', () => {
    const from = find('Period from')[1];
    expect(from).toBeInstanceOf(Date);
    expect((from as Date).toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect((find('Period to')[1] as Date).toISOString()).toBe('2024-05-07T00:00:00.000Z');
    expect(find('Business date')[1]).toBe(BUSINESS_DATE_RULE);
    expect(BUSINESS_DATE_RULE).toContain('start_time + start_time_offset');
  });

  it('says when, in which zone, and from which source the export was made', () => {
    expect(find('Generated at')[1]).toBe('2024-05-08 06:00:00 +02:00 (Europe/Berlin)');
    expect(find('Source')[1]).toBe(about().sourceBaseUrl);
    expect(find('Export ID')[1]).toBe(about().exportId);
    expect(find('Tool version')[1]).toBe('0.1.0');
  });

  it('lists every count of the export with its value', () => {
    const counts = about().counts;
    for (const [key, value] of Object.entries(counts)) {
      const row = find(key);
      expect(row[1], key).toBe(value);
      expect(String(row[2]).length, key).toBeGreaterThan(10);
    }
  });

  it('explains the highlight, the sheet limit and that distances have no stated unit', () => {
    expect(find('Highlight')[1]).toContain('below 80.00%');
    expect(find('Shifts sheets')[1]).toContain('1,000 shifts per sheet');
    expect(find('Distances')[1]).toContain('no unit');
    expect(find('Sheets')[1]).toBe(
      'Overview, Shifts, By division, By day, By region, By shop, By user, Rejected, About',
    );
  });

  it('says what every column of every sheet means', () => {
    const described = new Map(rows.map((values) => [`${String(values[0])}|${String(values[2])}`, values[3]]));
    const describedAnywhere = (sheetName: string, name: string): unknown =>
      described.get(`${sheetName}|${name}`) ??
      described.get(`By division, By day, By region, By shop, By user (each)|${name}`);
    const sheets: [string, readonly { name: string; description: string }[]][] = [
      ['Shifts', SHIFT_COLUMNS],
      ['By division', DIVISION_SUMMARY_COLUMNS],
      ['By day', DAY_SUMMARY_COLUMNS],
      ['By region', REGION_SUMMARY_COLUMNS],
      ['By shop', SHOP_SUMMARY_COLUMNS],
      ['By user', USER_SUMMARY_COLUMNS],
      ['Rejected', REJECTED_COLUMNS],
    ];
    for (const [sheetName, columns] of sheets) {
      for (const column of columns) {
        expect(describedAnywhere(sheetName, column.name), `${sheetName} ${column.name}`).toBe(
          column.description,
        );
      }
    }
    expect(described.get('Shifts|start_location_distance')).toContain('no unit');
  });

  it('names the quality flags with their meaning', () => {
    expect(String(find('duration_mismatch')[1])).toContain('60 seconds');
    expect(find('location_out_of_range')[1]).toBeTruthy();
  });

  it('defaults the zone of generated_at to UTC', async () => {
    const { timeZone: _ignored, ...withoutZone } = about();
    const workbook = await readWorkbook(await renderWorkbook({ about: withoutZone }));
    const generated = Array.from({ length: 10 }, (_, i) => rowValues(sheet(workbook, 'About'), i + 1)).find(
      (values) => values[0] === 'Generated at',
    );
    expect(generated?.[1]).toBe('2024-05-08 04:00:00 +00:00 (UTC)');
  });
});
