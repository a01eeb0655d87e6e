import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue, ColumnKind } from '../../src/domain/column.js';
import { cellWriter, writeNumber, writeUtf8 } from '../../src/render/cell-bytes.js';
import { cellFormatter, type CellFormat, type DecimalSeparator } from '../../src/render/cell-text.js';
import { nastyTextWithLoneSurrogates } from './csv/nasty-text.js';

type WrittenKind = Exclude<ColumnKind, 'text'>;

const format = (kind: WrittenKind): CellFormat & { kind: WrittenKind } => ({
  name: `a_${kind}`,
  kind,
  places: 2,
});

/** What the writer puts in a buffer of `room` bytes: the bytes, -1 (no room) or the error it threw. */
function written(
  kind: WrittenKind,
  decimal: DecimalSeparator,
  value: CellValue,
  room = 4_000,
): Buffer | -1 | Error {
  const target = Buffer.alloc(room + 3);
  try {
    const end = cellWriter(format(kind), { guardFormulas: true, decimalSeparator: decimal })(
      value,
      target,
      3,
    );
    return end === -1 ? -1 : target.subarray(3, end);
  } catch (error) {
    return error as Error;
  }
}

/** The definition: cellFormatter's text as UTF-8, or the error it throws. */
function expected(kind: WrittenKind, decimal: DecimalSeparator, value: CellValue): Buffer | Error {
  try {
    return Buffer.from(
      cellFormatter(format(kind), { guardFormulas: true, decimalSeparator: decimal })(value),
    );
  } catch (error) {
    return error as Error;
  }
}

// Coordinates and rounded values as the report has them, and any double, integer or stray value.
const coordinate = fc
  .tuple(fc.integer({ min: -180_000_000, max: 180_000_000 }), fc.integer({ min: 0, max: 8 }))
  .map(([m, places]) => m / 10 ** places);
const anyNumber = fc.oneof(
  coordinate,
  fc.double(),
  fc.double({ min: -1e-5, max: 1e-5 }),
  fc.double({ min: 1e12, max: 1e22 }),
  fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 100),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, 0.1, 1e-6, 9.999999e-7, 2 ** 45, 2 ** 53, -(2 ** 53), 1e21, 0.125, 1.005, -0.001),
);
const anyValue: fc.Arbitrary<CellValue> = fc.oneof(
  anyNumber,
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 4 }),
);
const KINDS: readonly WrittenKind[] = [
  'integer',
  'duration',
  'decimal',
  'rate',
  'number',
  'boolean',
  'date',
  'localDateTime',
  'utcDateTime',
  'offset',
];

describe('cellWriter', () => {
  it('writes the bytes of cellFormatter’s text, or throws its error, for every kind and value', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.constantFrom<DecimalSeparator>('.', ','),
        anyValue,
        (kind, decimal, value) => {
          const want = expected(kind, decimal, value);
          const got = written(kind, decimal, value);
          if (want instanceof Error) expect(got).toEqual(want);
          else expect(got instanceof Buffer ? got.toString('latin1') : got).toBe(want.toString('latin1'));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('writes every number as String does, and every rounded one as toFixed does', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<WrittenKind>('number', 'decimal'),
        fc.constantFrom<DecimalSeparator>('.', ','),
        anyNumber,
        (kind, decimal, value) => {
          expect(written(kind, decimal, value)).toEqual(expected(kind, decimal, value));
        },
      ),
      { numRuns: 50_000 },
    );
  });

  it('writes shortest coordinates and two-place hours as String and toFixed do', () => {
    expect(written('number', '.', -175.204389)).toEqual(Buffer.from('-175.204389'));
    expect(written('number', ',', 53.02875)).toEqual(Buffer.from('53,02875'));
    expect(written('number', '.', 1e-7)).toEqual(Buffer.from('0.0000001'));
    expect(written('decimal', '.', 8.73)).toEqual(Buffer.from('8.73'));
    expect(written('decimal', ',', -0.5)).toEqual(Buffer.from('-0,50'));
    expect(written('decimal', '.', 1.005)).toEqual(Buffer.from('1.00'));
    expect(written('localDateTime', '.', 1_709_481_603)).toEqual(Buffer.from('2024-03-03 16:00:03'));
    expect(written('utcDateTime', '.', 1_709_481_603)).toEqual(Buffer.from('2024-03-03T16:00:03Z'));
    expect(written('offset', '.', -570)).toEqual(Buffer.from('-09:30'));
  });

  it('answers -1 rather than write past the end, and writes the same once there is room', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), anyNumber, fc.nat({ max: 30 }), (kind, value, room) => {
        const want = expected(kind, '.', value);
        fc.pre(!(want instanceof Error));
        const got = written(kind, '.', value, room);
        if (got !== -1) expect(got).toEqual(want);
        else expect(written(kind, '.', value)).toEqual(want);
      }),
    );
  });
});

describe('writeUtf8', () => {
  it('writes what Buffer.from writes, lone surrogates as U+FFFD', () => {
    fc.assert(
      fc.property(fc.oneof(nastyTextWithLoneSurrogates, fc.string({ unit: 'binary' })), (text) => {
        const target = Buffer.alloc(3 * text.length + 1);
        const end = writeUtf8(text, target, 1);
        expect(target.subarray(1, end)).toEqual(Buffer.from(text));
      }),
    );
  });
});

describe('writeNumber', () => {
  it('writes String(n) of any number (a sheet cell), or -1 where it might not fit', () => {
    // Date-time serials too: whole seconds since 1900 as Excel's days, the values that fall back to String.
    const serial = fc.integer({ min: -2e9, max: 4e9 }).map((s) => 25569 + (s * 1000) / 86_400_000);
    fc.assert(
      fc.property(
        fc.oneof(anyNumber, serial, fc.constantFrom(NaN, Infinity, -Infinity)),
        fc.nat({ max: 30 }),
        (n, room) => {
          const target = Buffer.alloc(room + 2);
          const end = writeNumber(n, target, 2);
          if (end !== -1) expect(target.subarray(2, end).toString('latin1')).toBe(String(n));
          const roomy = Buffer.alloc(40);
          expect(roomy.subarray(0, writeNumber(n, roomy, 0)).toString('latin1')).toBe(String(n));
        },
      ),
    );
  });
});
