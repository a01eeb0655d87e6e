import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../../src/domain/summary-columns.js';
import { REJECTED_COLUMNS } from '../../../src/domain/rejected-row.js';
import { HIGHLIGHT_FILL } from '../../../src/render/xlsx/xlsx-cells.js';
import { readWorkbook, renderWorkbook, rowValues, sheet } from './workbook-io.js';
import { shiftRecord, summaries } from './shift-fixtures.js';

const { ValueType } = ExcelJS;

function highlighted(cell: ExcelJS.Cell): boolean {
  return cell.fill?.type === 'pattern' && cell.fill.pattern === 'solid';
}

function columnIndex(columns: readonly { name: string }[], name: string): number {
  return columns.findIndex((column) => column.name === name) + 1;
}

describe('the workbook around the Shifts sheet', () => {
  let workbook: ExcelJS.Workbook;

  beforeAll(async () => {
    workbook = await readWorkbook(
      await renderWorkbook({
        shifts: [shiftRecord()],
        rejected: [
          {
            id: 17,
            reason: 'start_time: expected an ISO 8601 date-time',
            rawJson: '{"id":17,"start_time":"yesterday"}',
          },
          { id: null, reason: 'id: expected number, received string', rawJson: '{"id":"=1+1"}' },
        ],
      }),
    );
  });

  it('has every sheet, in order', () => {
    expect(workbook.worksheets.map((w) => w.name)).toEqual([
      'Overview',
      'Shifts',
      'By division',
      'By day',
      'By region',
      'By shop',
      'By user',
      'Rejected',
      'About',
    ]);
  });

  it('fixes the workbook properties from the export', () => {
    expect(workbook.creator).toBe('shift-export test');
    expect(workbook.lastModifiedBy).toBe('shift-export test');
    expect(workbook.created.toISOString()).toBe('2024-05-08T04:00:00.000Z');
    expect(workbook.modified.toISOString()).toBe('2024-05-08T04:00:00.000Z');
    expect(workbook.title).toBe('Shifts 2024-05-01 to 2024-05-07');
  });

  it('puts each summary under its declared headers', () => {
    const expected: [string, readonly { header: string }[]][] = [
      ['By division', DIVISION_SUMMARY_COLUMNS],
      ['By day', DAY_SUMMARY_COLUMNS],
      ['By region', REGION_SUMMARY_COLUMNS],
      ['By shop', SHOP_SUMMARY_COLUMNS],
      ['By user', USER_SUMMARY_COLUMNS],
    ];
    for (const [name, columns] of expected) {
      const worksheet = sheet(workbook, name);
      expect(rowValues(worksheet, 1), name).toEqual(columns.map((column) => column.header));
      expect(worksheet.views[0], name).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(worksheet.getRow(1).getCell(1).font?.bold, name).toBe(true);
    }
  });

  it('lists the groups in the order they arrive (sorted by name)', () => {
    const divisions = sheet(workbook, 'By division');
    const name = columnIndex(DIVISION_SUMMARY_COLUMNS, 'division_name');
    expect([2, 3, 4].map((row) => divisions.getRow(row).getCell(name).value)).toEqual([
      'North',
      'South',
      'West',
    ]);
    expect(
      divisions.getRow(4).getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'division_external_id')).value,
    ).toBe('007');
  });

  it('shows rates as percentages and leaves a rate with nothing checked empty', () => {
    const divisions = sheet(workbook, 'By division');
    const rate = divisions.getRow(2).getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'start_match_rate'));
    expect(rate.value).toBe(0.9);
    expect(rate.numFmt).toBe('0.00%');
    expect(divisions.getRow(2).getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'hours')).numFmt).toBe('0.00');
    expect(divisions.getRow(4).getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'start_match_rate')).type).toBe(
      ValueType.Null,
    );
  });

  it('fills a start match rate below the threshold red, and only that one', () => {
    const divisions = sheet(workbook, 'By division');
    const rate = columnIndex(DIVISION_SUMMARY_COLUMNS, 'start_match_rate');
    expect(divisions.getRow(3).getCell(rate).value).toBe(0.7);
    expect(divisions.getRow(3).getCell(rate).fill).toEqual(HIGHLIGHT_FILL);
    expect(divisions.getRow(6).getCell(rate).value).toBe(0.8);
    // Exactly at the threshold is not below it.
    expect(highlighted(divisions.getRow(6).getCell(rate))).toBe(false);
    expect(highlighted(divisions.getRow(2).getCell(rate))).toBe(false);
    expect(highlighted(divisions.getRow(3).getCell(rate + 1))).toBe(false);
    // Nothing checked is not "below": no highlight on an empty rate.
    expect(highlighted(divisions.getRow(4).getCell(rate))).toBe(false);
  });

  it('adds a bold "All shifts" total under a blank row, outside the autofilter', () => {
    const divisions = sheet(workbook, 'By division');
    const total = divisions.getRow(6);
    expect(divisions.getRow(5).hasValues).toBe(false);
    expect(total.getCell(1).value).toBe('All shifts');
    expect(total.getCell(1).font?.bold).toBe(true);
    expect(total.getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'shifts')).value).toBe(22);
    expect(total.getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'start_match_rate')).value).toBe(0.8);
    expect(total.getCell(columnIndex(DIVISION_SUMMARY_COLUMNS, 'division_name')).type).toBe(ValueType.Null);
    expect(divisions.autoFilter).toBe('A1:U4');
  });

  it('lists By day by date, each day\'s "All divisions" row first, with no total row', () => {
    const days = sheet(workbook, 'By day');
    const keys = [2, 3, 4, 5].map((row) => rowValues(days, row).slice(0, 3));
    expect(keys).toEqual([
      [new Date(Date.UTC(2024, 4, 1)), undefined, 'All divisions'],
      [new Date(Date.UTC(2024, 4, 1)), 1, 'North'],
      [new Date(Date.UTC(2024, 4, 2)), undefined, 'All divisions'],
      [new Date(Date.UTC(2024, 4, 2)), 2, 'South'],
    ]);
    expect(days.rowCount).toBe(5);
    expect(days.autoFilter).toBe('A1:U5');
    const rate = columnIndex(DAY_SUMMARY_COLUMNS, 'start_match_rate');
    expect(days.getRow(5).getCell(rate).value).toBe(0.7);
    expect(days.getRow(5).getCell(rate).fill).toEqual(HIGHLIGHT_FILL);
    expect(highlighted(days.getRow(3).getCell(rate))).toBe(false);
  });

  it('writes user-supplied names in summaries as text, never formulas', () => {
    const users = sheet(workbook, 'By user');
    const name = users.getRow(2).getCell(columnIndex(USER_SUMMARY_COLUMNS, 'user_display_name'));
    expect(name.type).toBe(ValueType.String);
    expect(name.value).toBe('=cmd|calc');
  });

  it('fits summary text columns to their longest value', () => {
    const shops = sheet(workbook, 'By shop');
    const locality = columnIndex(SHOP_SUMMARY_COLUMNS, 'region_name');
    expect(shops.getColumn(locality).width).toBeGreaterThanOrEqual('Region A'.length);
  });

  it('lists the rejected rows with their reasons and raw JSON as text', () => {
    const rejected = sheet(workbook, 'Rejected');
    expect(rowValues(rejected, 1)).toEqual(REJECTED_COLUMNS.map((column) => column.header));
    expect(rowValues(rejected, 2)).toEqual([
      17,
      'start_time: expected an ISO 8601 date-time',
      '{"id":17,"start_time":"yesterday"}',
    ]);
    expect(rejected.getRow(3).getCell(1).type).toBe(ValueType.Null);
    expect(rejected.getRow(3).getCell(3).type).toBe(ValueType.String);
    expect(rejected.getRow(3).getCell(3).value).toBe('{"id":"=1+1"}');
    expect(rejected.autoFilter).toBe('A1:C3');
  });
});

describe('the Rejected sheet', () => {
  it('cuts raw JSON longer than an Excel cell can hold, and says so', async () => {
    const rawJson = `{"comment":"${'x'.repeat(40_000)}"}`;
    const workbook = await readWorkbook(
      await renderWorkbook({ rejected: [{ id: 1, reason: 'comment: too long', rawJson }] }),
    );
    const cell = sheet(workbook, 'Rejected').getRow(2).getCell(3);
    expect(cell.type).toBe(ValueType.String);
    expect(String(cell.value)).toHaveLength(32_767);
    expect(String(cell.value).endsWith('… [truncated]')).toBe(true);
    expect(String(cell.value).startsWith('{"comment":"xxx')).toBe(true);
  });
});

describe('the summary highlight threshold', () => {
  it('follows the configured ratio', async () => {
    const workbook = await readWorkbook(
      await renderWorkbook({ shifts: [], summaries: summaries(), options: { matchRateThreshold: 0.95 } }),
    );
    const divisions = sheet(workbook, 'By division');
    const rate = columnIndex(DIVISION_SUMMARY_COLUMNS, 'start_match_rate');
    expect(divisions.getRow(2).getCell(rate).fill).toEqual(HIGHLIGHT_FILL);
    expect(divisions.getRow(6).getCell(rate).fill).toEqual(HIGHLIGHT_FILL);
  });

  it('handles a workbook with no groups at all', async () => {
    const empty = { ...summaries(), divisions: [], regions: [], shops: [], users: [] };
    const workbook = await readWorkbook(await renderWorkbook({ summaries: empty }));
    const users = sheet(workbook, 'By user');
    expect(users.getRow(3).getCell(1).value).toBe('All shifts');
    expect(users.autoFilter).toBe('A1:U1');
  });
});
