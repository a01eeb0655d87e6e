import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hasEdgeWhiteSpace,
  cellText,
  columnWidthOf,
  EXCEL_MAX_CELL_TEXT,
  numberFormatOf,
  xlsxValue,
} from '../../../src/render/xlsx/xlsx-cells.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';

const require = createRequire(import.meta.url);
// exceljs's conversion of a Date cell, the oracle of the serial numbers.
const { dateToExcel } = require('exceljs/lib/utils/utils.js') as { dateToExcel(date: Date): number };

describe('numberFormatOf', () => {
  it("formats each kind so Excel shows what the CSV prints, dates in the reader's own order", () => {
    // exceljs's names of the built-in formats 22 and 14 (no format code of our own).
    expect(numberFormatOf({ kind: 'localDateTime' })).toBe('m/d/yy "h":mm');
    expect(numberFormatOf({ kind: 'utcDateTime' })).toBe('m/d/yy "h":mm');
    expect(numberFormatOf({ kind: 'date' })).toBe('mm-dd-yy');
    expect(numberFormatOf({ kind: 'duration' })).toBe('[h]:mm');
    expect(numberFormatOf({ kind: 'decimal', places: 2 })).toBe('0.00');
    expect(numberFormatOf({ kind: 'integer' })).toBe('0');
    expect(numberFormatOf({ kind: 'text' })).toBe('@');
    expect(numberFormatOf({ kind: 'number' })).toBeUndefined();
  });

  it('shows a 4-place rate as a percentage with 2 places', () => {
    expect(numberFormatOf({ kind: 'rate', places: 4 })).toBe('0.00%');
    expect(numberFormatOf({ kind: 'rate', places: 3 })).toBe('0.0%');
    expect(numberFormatOf({ kind: 'rate', places: 2 })).toBe('0%');
  });
});

describe('xlsxValue', () => {
  it('turns wall-clock seconds into the serial day number of that wall clock', () => {
    // 2024-02-29 is serial day 45351; 23:30:15 is 84,615 of its 86,400 seconds.
    expect(xlsxValue('localDateTime', Date.UTC(2024, 1, 29, 23, 30, 15) / 1000)).toBe(
      45351 + 84_615 / 86_400,
    );
    expect(xlsxValue('utcDateTime', 0)).toBe(25569);
  });

  it('turns a day number into the serial number of midnight of that date', () => {
    expect(xlsxValue('date', 19_782)).toBe(45351);
  });

  it('gives dates and times the very number exceljs writes for the Date they stand for (property)', () => {
    const seconds = fc.integer({ min: -62_135_596_800, max: 253_402_300_799 });
    fc.assert(
      fc.property(seconds, (s) => {
        const day = Math.floor(s / 86_400);
        expect(xlsxValue('localDateTime', s)).toBe(dateToExcel(new Date(s * 1000)));
        expect(xlsxValue('date', day)).toBe(dateToExcel(new Date(day * 86_400_000)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('turns a duration in seconds into days, which [h]:mm shows as hours', () => {
    expect(xlsxValue('duration', 93_600)).toBe(93_600 / 86_400);
  });

  it('writes offsets as +HH:MM text, including -12:00 and +05:45', () => {
    expect(xlsxValue('offset', -720)).toBe('-12:00');
    expect(xlsxValue('offset', 345)).toBe('+05:45');
    expect(xlsxValue('offset', 0)).toBe('+00:00');
  });

  it('keeps dangerous and numeric-looking text as the same string', () => {
    for (const text of ['=HYPERLINK("http://x")', '+1', '-1', '@SUM(A1)', '00123', '1e5']) {
      expect(xlsxValue('text', text)).toBe(text);
    }
  });

  it('makes a text column value text even when it is a number', () => {
    expect(xlsxValue('text', 123)).toBe('123');
  });

  it('leaves null, empty text and non-finite numbers as empty cells', () => {
    expect(xlsxValue('text', null)).toBeNull();
    expect(xlsxValue('text', '')).toBeNull();
    expect(xlsxValue('integer', null)).toBeNull();
    expect(xlsxValue('number', Number.NaN)).toBeNull();
    expect(xlsxValue('decimal', Number.POSITIVE_INFINITY)).toBeNull();
    expect(xlsxValue('boolean', null)).toBeNull();
  });
});

describe('cellText', () => {
  it('keeps text up to Excel’s 32,767 characters unchanged', () => {
    const text = 'x'.repeat(EXCEL_MAX_CELL_TEXT);
    expect(cellText(text)).toBe(text);
  });

  it('cuts longer text to 32,767 characters with a visible mark', () => {
    const cut = cellText('y'.repeat(EXCEL_MAX_CELL_TEXT + 10));
    expect(cut).toHaveLength(EXCEL_MAX_CELL_TEXT);
    expect(cut.endsWith('… [truncated]')).toBe(true);
  });

  it('never cuts an emoji in half', () => {
    const emoji = '😀';
    const cut = cellText(emoji.repeat(EXCEL_MAX_CELL_TEXT));
    expect(cut.length).toBeLessThanOrEqual(EXCEL_MAX_CELL_TEXT);
    expect(cut.replace('… [truncated]', '').replaceAll(emoji, '')).toBe('');
  });
});

describe('columnWidthOf', () => {
  it('widens every Shifts column so its bold header and filter button fit', () => {
    for (const column of SHIFT_COLUMNS) {
      expect(columnWidthOf(column), column.name).toBeGreaterThanOrEqual(column.header.length + 2);
    }
  });

  it('gives date-times room for all 19 characters', () => {
    expect(columnWidthOf({ kind: 'localDateTime', header: 'T', width: 10 })).toBeGreaterThanOrEqual(20);
  });

  it('grows with the longest value, up to a cap', () => {
    expect(columnWidthOf({ kind: 'text', header: 'Name', width: 10 }, 30)).toBe(32);
    expect(columnWidthOf({ kind: 'text', header: 'Name', width: 10 }, 5000)).toBe(80);
  });
});

describe('xlsxValue of text with white space at an edge', () => {
  it('keeps leading and trailing spaces and tabs by writing an inline string', () => {
    expect(xlsxValue('text', ' late ')).toEqual({ richText: [{ text: ' late ' }] });
    expect(xlsxValue('text', '\t=tab then formula')).toEqual({ richText: [{ text: '\t=tab then formula' }] });
  });

  it('leaves text without edge white space a plain string', () => {
    expect(xlsxValue('text', 'two\nlines')).toBe('two\nlines');
    expect(xlsxValue('text', '=HYPERLINK("x")')).toBe('=HYPERLINK("x")');
  });
});

describe('hasEdgeWhiteSpace', () => {
  const EDGE = /^\s|\s$/;

  it('says what /^\\s|\\s$/ says of every UTF-16 code unit, alone and at either end', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      for (const text of [c, `${c}x`, `x${c}`, `x${c}x`])
        if (hasEdgeWhiteSpace(text) !== EDGE.test(text))
          throw new Error(`differs for U+${code.toString(16)}`);
    }
    expect(hasEdgeWhiteSpace('')).toBe(false);
  });

  it('says what /^\\s|\\s$/ says of any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(hasEdgeWhiteSpace(text)).toBe(EDGE.test(text));
      }),
    );
  });
});
