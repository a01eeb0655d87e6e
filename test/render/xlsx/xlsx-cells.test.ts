import { describe, expect, it } from 'vitest';
import {
  cellText,
  columnWidthOf,
  EXCEL_MAX_CELL_TEXT,
  numberFormatOf,
  xlsxValue,
} from '../../../src/render/xlsx/xlsx-cells.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';

describe('numberFormatOf', () => {
  it('formats each kind so Excel shows what the CSV prints', () => {
    expect(numberFormatOf({ kind: 'localDateTime' })).toBe('yyyy-mm-dd hh:mm:ss');
    expect(numberFormatOf({ kind: 'utcDateTime' })).toBe('yyyy-mm-dd hh:mm:ss');
    expect(numberFormatOf({ kind: 'date' })).toBe('yyyy-mm-dd');
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
  it('turns wall-clock seconds into a Date whose UTC parts are that wall clock', () => {
    // 2024-02-29 23:30:15 as wall-clock seconds.
    const value = xlsxValue('localDateTime', Date.UTC(2024, 1, 29, 23, 30, 15) / 1000);
    expect(value).toBeInstanceOf(Date);
    expect((value as Date).toISOString()).toBe('2024-02-29T23:30:15.000Z');
  });

  it('turns a day number into midnight of that date', () => {
    expect((xlsxValue('date', 19_782) as Date).toISOString()).toBe('2024-02-29T00:00:00.000Z');
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
