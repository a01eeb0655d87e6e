import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finishedShiftSchema } from 'wfm-contract/finished-shift';
import { checkFieldTypes } from '../../src/pipeline/field-types.js';
import { realisticRows, shiftRow } from './support/shift-rows.js';

const FIELDS = Object.keys(shiftRow());
const BASE_ROWS = realisticRows(200);

/** Values of every JSON type, including the near misses of each contract type. */
const anyValue = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    1,
    -1,
    1.5,
    2 ** 53,
    2 ** 53 - 1,
    -(2 ** 53),
    1e300,
    '',
    '0',
    'SHOP',
    'shop',
  ),
  fc.constantFrom(
    '2024-05-01T08:00:00',
    '2024-05-01T08:00:00.123456789',
    '2024-05-01T08:00:00.',
    '2024-05-01T08:00:00.1234567890',
  ),
  fc.constantFrom(
    '2024-5-01T08:00:00',
    '2024-05-01t08:00:00',
    '2024-05-01T08:00:00Z',
    '٢٠٢٤-05-01T08:00:00',
    '2023-02-29T08:00:00',
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);

/** A realistic row with some members replaced by arbitrary values or removed. */
const mutatedRow = fc
  .tuple(
    fc.integer({ min: 0, max: 199 }),
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(anyValue, { nil: undefined })), { maxLength: 3 }),
  )
  .map(([index, changes]) => {
    const row: Record<string, unknown> = { ...BASE_ROWS[index] };
    for (const [field, value] of changes) {
      if (value === undefined) delete row[field];
      else row[field] = value;
    }
    return row;
  });

describe('checkFieldTypes', () => {
  it('accepts exactly the rows finishedShiftSchema accepts and returns the same object (property)', () => {
    fc.assert(
      fc.property(fc.oneof(mutatedRow, anyValue), (raw) => {
        const parsed = finishedShiftSchema.safeParse(raw);
        const read = checkFieldTypes(raw);
        expect(read !== undefined).toBe(parsed.success);
        if (parsed.success) expect(JSON.stringify(read)).toBe(JSON.stringify(parsed.data));
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses rows the schema refuses on each member alone', () => {
    for (const field of FIELDS) {
      for (const value of [undefined, 'x', 1.5, [], {}]) {
        const row = shiftRow({ [field]: value });
        if (value === undefined) delete row[field];
        expect(checkFieldTypes(row) !== undefined, `${field} = ${JSON.stringify(value)}`).toBe(
          finishedShiftSchema.safeParse(row).success,
        );
      }
    }
  });
});
