import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue, ColumnKind } from '../../src/domain/column.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import {
  cellFormatter,
  CellValueError,
  kindTextMayNeedQuotes,
  plainNumber,
  type CellFormat,
} from '../../src/render/cell-text.js';

const col = (kind: ColumnKind, places?: number): CellFormat =>
  places === undefined ? { name: `a_${kind}`, kind } : { name: `a_${kind}`, kind, places };

// The production formatter, as the XLSX writer (no guard) and the CSV writers (guard) build it.
const cellText = (format: CellFormat, value: CellValue): string =>
  cellFormatter(format, { guardFormulas: false })(value);
const csvCellText = (format: CellFormat, value: CellValue): string =>
  cellFormatter(format, { guardFormulas: true })(value);

const ALL_KINDS: readonly ColumnKind[] = [
  'text',
  'integer',
  'decimal',
  'rate',
  'number',
  'boolean',
  'date',
  'localDateTime',
  'utcDateTime',
  'offset',
  'duration',
];

// 2024-02-29 (a leap day) 23:59:59 UTC
const LEAP_DAY_END = Date.UTC(2024, 1, 29, 23, 59, 59) / 1000;

describe('cellText', () => {
  it.each<[string, CellFormat, CellValue, string]>([
    ['text as it is', col('text'), 'Ivan Petrov', 'Ivan Petrov'],
    ['text that looks like a formula unguarded', col('text'), '=1+2', '=1+2'],
    ['an integer', col('integer'), 42, '42'],
    ['a negative integer without a guard', col('integer'), -12, '-12'],
    ['a decimal with exactly its places', col('decimal', 2), 8, '8.00'],
    ['a rounded decimal', col('decimal', 2), 8.25, '8.25'],
    ['a rate with 4 places', col('rate', 4), 0.5, '0.5000'],
    ['a rate of 1', col('rate', 4), 1, '1.0000'],
    ['a negative zero decimal as zero', col('decimal', 2), -0, '0.00'],
    ['a coordinate as JavaScript prints it', col('number'), 55.755826, '55.755826'],
    ['a negative coordinate', col('number'), -12, '-12'],
    ['a tiny coordinate without an exponent', col('number'), 1e-7, '0.0000001'],
    ['a huge number without an exponent', col('number'), 1.5e21, '1500000000000000000000'],
    ['true', col('boolean'), true, 'true'],
    ['false', col('boolean'), false, 'false'],
    ['a day number as a date', col('date'), 19_782, '2024-02-29'],
    ['local epoch seconds as wall-clock text', col('localDateTime'), LEAP_DAY_END, '2024-02-29 23:59:59'],
    ['UTC epoch seconds with T and Z', col('utcDateTime'), LEAP_DAY_END, '2024-02-29T23:59:59Z'],
    ['a positive offset', col('offset'), 330, '+05:30'],
    ['a negative offset', col('offset'), -570, '-09:30'],
    ['a zero offset as +00:00', col('offset'), 0, '+00:00'],
    ['a duration as whole seconds', col('duration'), 30_600, '30600'],
  ])('prints %s', (_name, format, value, expected) => {
    expect(cellText(format, value)).toBe(expected);
  });

  it.each(ALL_KINDS)('prints null as an empty cell for a %s column', (kind) => {
    expect(cellText(col(kind, 2), null)).toBe('');
    expect(csvCellText(col(kind, 2), null)).toBe('');
  });

  it('keeps an empty string empty', () => {
    expect(csvCellText(col('text'), '')).toBe('');
  });

  it('guards formulas in CSV text cells only', () => {
    expect(csvCellText(col('text'), '=1+2')).toBe("'=1+2");
    expect(csvCellText(col('text'), '-5 minutes late')).toBe("'-5 minutes late");
    expect(csvCellText(col('integer'), -12)).toBe('-12');
    expect(csvCellText(col('number'), -30.5)).toBe('-30.5');
    expect(csvCellText(col('offset'), 330)).toBe('+05:30');
    expect(csvCellText(col('decimal', 2), -1.5)).toBe('-1.50');
  });

  it.each<[ColumnKind, CellValue]>([
    ['text', 12],
    ['integer', '12'],
    ['integer', 1.5],
    ['integer', Number.NaN],
    ['duration', true],
    ['date', 1.5],
    ['decimal', Number.POSITIVE_INFINITY],
    ['decimal', 1e21],
    ['rate', 'x'],
    ['number', Number.NaN],
    ['boolean', 'true'],
    ['offset', '+05:30'],
  ])('refuses a %s column given %s', (kind, value) => {
    expect(() => cellText(col(kind, 2), value)).toThrow(CellValueError);
  });

  it('names the column and the code when it refuses a value', () => {
    try {
      cellText({ name: 'duration_hours', kind: 'decimal', places: 2 }, 'x');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CellValueError);
      expect((error as CellValueError).code).toBe('RENDER_CELL_INVALID');
      expect((error as CellValueError).message).toContain('duration_hours');
    }
  });

  it('refuses a decimal column declared without places', () => {
    expect(() => cellFormatter(col('decimal'), { guardFormulas: true })).toThrow(/decimals/);
  });
});

describe('plainNumber', () => {
  it('reads back as the same number and never has an exponent', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = plainNumber(n);
        expect(text).toMatch(/^-?\d+(\.\d+)?$/);
        expect(Number(text)).toBe(n === 0 ? 0 : n);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the text of non-text kinds', () => {
  const values: Record<Exclude<ColumnKind, 'text'>, fc.Arbitrary<CellValue>> = {
    integer: fc.maxSafeInteger(),
    duration: fc.integer({ min: -1e9, max: 1e9 }),
    decimal: fc.double({ min: -1e15, max: 1e15, noNaN: true }),
    rate: fc.double({ min: 0, max: 1, noNaN: true }),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }),
    boolean: fc.boolean(),
    date: fc.integer({ min: -719_162, max: 2_932_896 }),
    localDateTime: fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }),
    utcDateTime: fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }),
    offset: fc.integer({ min: -720, max: 840 }),
  };

  it('never holds a delimiter, quote or line break, so it never needs CSV quotes', () => {
    for (const [kind, arbitrary] of Object.entries(values)) {
      expect(kindTextMayNeedQuotes(kind as ColumnKind)).toBe(false);
      const format = cellFormatter(col(kind as ColumnKind, 4), { guardFormulas: true });
      fc.assert(
        fc.property(fc.option(arbitrary), (value) => {
          expect(format(value)).toMatch(/^[0-9A-Za-z+\-.: ]*$/);
        }),
        { numRuns: 300 },
      );
    }
    expect(kindTextMayNeedQuotes('text')).toBe(true);
  });

  it('covers every kind the shift columns use', () => {
    for (const c of SHIFT_COLUMNS) expect(ALL_KINDS).toContain(c.kind);
  });
});
