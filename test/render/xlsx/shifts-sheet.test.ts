import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { zipEntries } from '../../support/workbook-xml.js';
import { readWorkbook, renderWorkbook, rowValues, sheet } from './workbook-io.js';
import { shiftRecord } from './shift-fixtures.js';

const { ValueType } = ExcelJS;

function cellOf(worksheet: ExcelJS.Worksheet, row: number, name: string): ExcelJS.Cell {
  const index = SHIFT_COLUMNS.findIndex((column) => column.name === name);
  if (index < 0) throw new Error(`no column ${name}`);
  return worksheet.getRow(row).getCell(index + 1);
}

function utcParts(value: unknown): string {
  if (!(value instanceof Date)) throw new Error(`expected a Date, got ${JSON.stringify(value)}`);
  return value.toISOString().replace('T', ' ').slice(0, 19);
}

const EXCEL_EPOCH = Date.UTC(1899, 11, 30);

const records = [
  shiftRecord(),
  shiftRecord({ id: 2, shop_sap: '000042', comment: '=HYPERLINK("http://evil.example","click")' }),
  // +05:45: 18:30 UTC is 00:15 the next day, so the shift counts for 2024-05-02.
  shiftRecord({
    id: 3,
    comment: '+1',
    start_time: '2024-05-01T18:30:00',
    start_time_offset: 345,
    finish_time: '2024-05-02T02:30:00',
    finish_time_offset: 345,
  }),
  // -12:00: starts at 23:00 local on 1 May, finishes at 08:00 local on 2 May.
  shiftRecord({
    id: 4,
    comment: '-2+3',
    start_time: '2024-05-02T11:00:00',
    start_time_offset: -720,
    finish_time: '2024-05-02T20:00:00',
    finish_time_offset: -720,
    duration: 32_400,
  }),
  shiftRecord(
    {
      id: 5,
      user_login: '1e5',
      user_position: null,
      shop_locality: null,
      comment: '@SUM(A1) line one\nline two 😀',
      start_location_lat: null,
      start_location_lon: null,
      start_location_distance: null,
      start_location_match: null,
      finish_location_lat: null,
      finish_location_lon: null,
      finish_location_distance: null,
      finish_location_match: null,
      auto_finished: true,
      duration: 93_600,
    },
    { qualityFlags: 'duration_mismatch' },
  ),
];

describe('the Shifts sheet', () => {
  let shifts: ExcelJS.Worksheet;
  let stylesXml: string;

  beforeAll(async () => {
    const bytes = await renderWorkbook({ shifts: records });
    shifts = sheet(await readWorkbook(bytes), 'Shifts');
    stylesXml = zipEntries(bytes).get('xl/styles.xml')?.toString('utf8') ?? '';
  });

  it('uses the built-in date formats 14 and 22, which every reader sees in their own date order', () => {
    const numFmtIds = new Set([...stylesXml.matchAll(/<xf [^>]*numFmtId="(\d+)"/g)].map((m) => m[1]));
    expect(numFmtIds).toContain('14');
    expect(numFmtIds).toContain('22');
    // No format code of our own spells out a date order.
    const codes = [...stylesXml.matchAll(/<numFmt [^>]*formatCode="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(codes.filter((code) => /[yd]/i.test(code.replace(/"[^"]*"/g, '')))).toEqual([]);
  });

  it('has the declared headers in declaration order, bold', () => {
    expect(rowValues(shifts, 1)).toEqual(SHIFT_COLUMNS.map((column) => column.header));
    expect(shifts.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(shifts.getRow(1).getCell(SHIFT_COLUMNS.length).font?.bold).toBe(true);
  });

  it('holds one row per shift under the header', () => {
    expect(shifts.rowCount).toBe(records.length + 1);
    expect(cellOf(shifts, 6, 'shift_id').value).toBe(5);
  });

  it('freezes the header row and filters over header and data', () => {
    expect(shifts.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(shifts.autoFilter).toBe(`A1:AK${records.length + 1}`);
  });

  it('makes every column at least as wide as its header', () => {
    SHIFT_COLUMNS.forEach((column, i) => {
      expect(shifts.getColumn(i + 1).width, column.name).toBeGreaterThan(column.header.length);
    });
  });

  it('shows local and UTC times as date-time cells with the wall clock of the data', () => {
    const start = cellOf(shifts, 2, 'start_local');
    expect(start.type).toBe(ValueType.Date);
    expect(start.numFmt).toBe('m/d/yy "h":mm');
    expect(utcParts(start.value)).toBe('2024-05-01 08:00:00');
    expect(utcParts(cellOf(shifts, 2, 'start_utc').value)).toBe('2024-05-01 05:00:00');
    expect(utcParts(cellOf(shifts, 2, 'finish_local').value)).toBe('2024-05-01 16:00:00');
  });

  it('puts an 18:30 UTC start at +05:45 on the next business date', () => {
    expect(utcParts(cellOf(shifts, 4, 'start_local').value)).toBe('2024-05-02 00:15:00');
    const businessDate = cellOf(shifts, 4, 'business_date');
    expect(businessDate.type).toBe(ValueType.Date);
    expect(businessDate.numFmt).toBe('mm-dd-yy');
    expect(utcParts(businessDate.value)).toBe('2024-05-02 00:00:00');
    expect(cellOf(shifts, 4, 'start_utc_offset').value).toBe('+05:45');
  });

  it('keeps a cross-midnight shift at -12:00 on the date of its start', () => {
    expect(utcParts(cellOf(shifts, 5, 'start_local').value)).toBe('2024-05-01 23:00:00');
    expect(utcParts(cellOf(shifts, 5, 'finish_local').value)).toBe('2024-05-02 08:00:00');
    expect(utcParts(cellOf(shifts, 5, 'business_date').value)).toBe('2024-05-01 00:00:00');
    expect(cellOf(shifts, 5, 'finish_utc_offset').value).toBe('-12:00');
  });

  it('shows durations as [h]:mm over a number of days, past 24 hours too', () => {
    const duration = cellOf(shifts, 6, 'duration_seconds');
    expect(duration.numFmt).toBe('[h]:mm');
    // exceljs's reader turns any date-formatted number into a Date: undo that to get the days.
    const days = ((duration.value as Date).getTime() - EXCEL_EPOCH) / 86_400_000;
    expect(days).toBeCloseTo(26 / 24, 12);
    expect(cellOf(shifts, 6, 'duration_hours').value).toBe(26);
    expect(cellOf(shifts, 6, 'duration_hours').numFmt).toBe('0.00');
  });

  it('writes match flags and auto-finished as boolean cells', () => {
    const start = cellOf(shifts, 2, 'start_location_match');
    expect(start.type).toBe(ValueType.Boolean);
    expect(start.value).toBe(true);
    expect(cellOf(shifts, 2, 'finish_location_match').value).toBe(false);
    expect(cellOf(shifts, 6, 'auto_finished').value).toBe(true);
  });

  it('writes coordinates and distances as numbers', () => {
    expect(cellOf(shifts, 2, 'start_location_lat').type).toBe(ValueType.Number);
    expect(cellOf(shifts, 2, 'start_location_lat').value).toBe(55.7558);
    expect(cellOf(shifts, 2, 'finish_location_distance').value).toBe(40);
  });

  it('leaves null locations, positions and shop names empty', () => {
    for (const name of [
      'start_location_lat',
      'start_location_match',
      'finish_location_distance',
      'user_position',
      'shop_locality',
    ]) {
      expect(cellOf(shifts, 6, name).type, name).toBe(ValueType.Null);
    }
    expect(cellOf(shifts, 6, 'location_status').value).toBe('no_location');
  });

  it('keeps SAP numbers as text with their leading zeros', () => {
    const sap = cellOf(shifts, 3, 'shop_sap');
    expect(sap.type).toBe(ValueType.String);
    expect(sap.value).toBe('000042');
    expect(sap.numFmt).toBe('@');
    expect(cellOf(shifts, 6, 'user_login').value).toBe('1e5');
  });

  it('writes text that looks like a formula as text, exactly as sent', () => {
    const expected: Record<number, string> = {
      3: '=HYPERLINK("http://evil.example","click")',
      4: '+1',
      5: '-2+3',
      6: '@SUM(A1) line one\nline two 😀',
    };
    for (const [row, text] of Object.entries(expected)) {
      const cell = cellOf(shifts, Number(row), 'comment');
      expect(cell.type, text).toBe(ValueType.String);
      expect(cell.formula).toBeUndefined();
      expect(cell.value).toBe(text);
    }
  });

  it('leaves a clean row’s quality flags empty and names a flagged row’s', () => {
    expect(cellOf(shifts, 2, 'quality_flags').type).toBe(ValueType.Null);
    expect(cellOf(shifts, 6, 'quality_flags').value).toBe('duration_mismatch');
  });
});

/** Control characters other than tab and LF, CR (read back as LF), and the non-characters FFFE/FFFF. */
function hasXmlIllegalCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (
      (code < 0x20 && code !== 0x09 && code !== 0x0a) ||
      code === 0x7f ||
      code === 0xfffe ||
      code === 0xffff
    )
      return true;
  }
  return false;
}

describe('text cells', () => {
  // What XML 1.0 can carry: no control characters, no lone surrogates, no CR (XML parsers read CR
  // as LF). Everything else must come back exactly.
  const unit = fc.oneof(
    fc.constantFrom('=', '+', '-', '@', ' ', '\n', '\t', '"', '<', '&', '😀'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  );
  const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  const representable = fc
    .string({ unit, minLength: 1, maxLength: 40 })
    .filter((text) => !hasXmlIllegalCharacter(text) && !loneSurrogate.test(text));

  it('come back exactly as sent, whatever their characters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(representable, { minLength: 1, maxLength: 20 }), async (comments) => {
        const bytes = await renderWorkbook({
          shifts: comments.map((comment, i) => shiftRecord({ id: i + 1, comment })),
        });
        const shifts = sheet(await readWorkbook(bytes), 'Shifts');
        comments.forEach((comment, i) => {
          const cell = cellOf(shifts, i + 2, 'comment');
          // Text with white space at an edge is an inline rich-text string (see xlsx-cells.ts).
          expect([ValueType.String, ValueType.RichText]).toContain(cell.type);
          expect(cell.text).toBe(comment);
        });
      }),
      { numRuns: 10 },
    );
  });

  it('show U+FFFD for each character XML cannot hold (never drop it silently)', async () => {
    const bytes = await renderWorkbook({ shifts: [shiftRecord({ comment: 'a\u0001b\u007f\uFFFE\r\nc' })] });
    expect(cellOf(sheet(await readWorkbook(bytes), 'Shifts'), 2, 'comment').value).toBe(
      'a\uFFFDb\uFFFD\uFFFD\nc',
    );
  });
});

describe('rolling over to more Shifts sheets', () => {
  it('continues on "Shifts (2)" and "Shifts (3)" with the same header past the row limit', async () => {
    const many = Array.from({ length: 7 }, (_, i) => shiftRecord({ id: i + 1 }));
    const workbook = await readWorkbook(
      await renderWorkbook({ shifts: many, options: { sheetRowLimit: 3 } }),
    );
    expect(workbook.worksheets.map((w) => w.name).slice(0, 5)).toEqual([
      'Overview',
      'Shifts',
      'Shifts (2)',
      'Shifts (3)',
      'By division',
    ]);
    const ids = ['Shifts', 'Shifts (2)', 'Shifts (3)'].map((name) => {
      const worksheet = sheet(workbook, name);
      expect(rowValues(worksheet, 1)).toEqual(SHIFT_COLUMNS.map((column) => column.header));
      expect(worksheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      const rows = worksheet.rowCount - 1;
      expect(worksheet.autoFilter).toBe(`A1:AK${rows + 1}`);
      return Array.from({ length: rows }, (_, i) => cellOf(worksheet, i + 2, 'shift_id').value);
    });
    expect(ids).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('opens no empty extra sheet when the rows fill the last sheet exactly', async () => {
    const six = Array.from({ length: 6 }, (_, i) => shiftRecord({ id: i + 1 }));
    const workbook = await readWorkbook(await renderWorkbook({ shifts: six, options: { sheetRowLimit: 3 } }));
    expect(workbook.worksheets.filter((w) => w.name.startsWith('Shifts')).map((w) => w.name)).toEqual([
      'Shifts',
      'Shifts (2)',
    ]);
  });

  it('writes a header-only Shifts sheet when there are no shifts', async () => {
    const shifts = sheet(await readWorkbook(await renderWorkbook({ shifts: [] })), 'Shifts');
    expect(shifts.rowCount).toBe(1);
    expect(rowValues(shifts, 1)).toHaveLength(SHIFT_COLUMNS.length);
  });
});
