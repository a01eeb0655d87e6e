import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTEGER_SHIFT_FIELDS } from 'wfm-contract/finished-shift';
import { isExactly, roundedIntegerFields } from '../../src/pipeline/exact-integers.js';

/**
 * The oracle: whether the decimal `literal` equals the whole number `value`, by scaling both sides
 * to integers (literal·10^k = value·10^k) — no stripping, no shortcut.
 */
function denotes(literal: string, value: number): boolean {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) throw new Error(`not a JSON number: ${literal}`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const power = Number(exponent) - fraction.length;
  const mantissa = BigInt(`${sign}${whole}${fraction}`);
  const scale = power < 0 ? -power : 0;
  return mantissa * 10n ** BigInt(power + scale) === BigInt(value) * 10n ** BigInt(scale);
}

// Numbers as an upstream may write an integer: plainly, or with a fraction or exponent that
// JSON.parse may keep (1.0, 1E3) or round (9007199254740990.9, 1.000000000000000001, 1e-400).
const plain = fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map(String);
const safe = fc.maxSafeInteger().map(String);
const withZeros = fc
  .tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.integer({ min: 1, max: 25 }))
  .map(([n, zeros]) => `${n}.${'0'.repeat(zeros)}`);
const roundedAway = fc
  .tuple(
    fc.integer({ min: 0, max: 10 ** 9 }),
    fc.integer({ min: 14, max: 30 }),
    fc.integer({ min: 1, max: 9 }),
  )
  .map(([n, zeros, last]) => `${n}.${'0'.repeat(zeros)}${last}`);
const nearNines = fc
  .tuple(fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 15, max: 25 }))
  .map(([n, nines]) => `${n}.${'9'.repeat(nines)}`);
const exponent = fc
  .tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -400, max: 20 }), fc.constantFrom('e', 'E'))
  .map(([m, e, letter]) => `${m}${letter}${e}`);
const fractionExponent = fc
  .tuple(fc.integer({ min: 0, max: 999 }), fc.nat({ max: 10 ** 6 }), fc.integer({ min: -30, max: 20 }))
  .map(([m, f, e]) => `${m}.${f}e${e}`);
const nearTwo53 = fc
  .tuple(fc.integer({ min: -4, max: 4 }), fc.constantFrom('', '.5', '.9', '.1', '.49999999'))
  .map(([d, f]) => `${(2n ** 53n + BigInt(d)).toString()}${f}`);
const literal = fc.oneof(
  plain,
  safe,
  withZeros,
  roundedAway,
  nearNines,
  exponent,
  fractionExponent,
  nearTwo53,
);

const FIELDS = [...INTEGER_SHIFT_FIELDS, 'start_location_lat', 'comment', 'other'];
const space = fc.constantFrom('', ' ', '\n\t');

interface Member {
  readonly field: string;
  readonly literal: string;
  /** The key written with an escape (`\u0064` for `d`). */
  readonly escaped: boolean;
  /** The number inside an object under the key, not the key's own value. */
  readonly nested: boolean;
  readonly before: string;
  readonly after: string;
}

/** A row: members in any spelling, some keys written with escapes, now and then given twice. */
const row = fc
  .array(
    fc.record({
      field: fc.constantFrom(...FIELDS),
      literal,
      escaped: fc.boolean(),
      nested: fc.boolean(),
      before: space,
      after: space,
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((members: Member[]) => ({
    members,
    text: `{${members
      .map(({ field, literal, escaped, nested, before, after }) => {
        const key = escaped ? field.replace('d', '\\u0064') : field;
        const value = nested ? `{"${key}":${literal}}` : literal;
        return `"${key}"${before}:${after}${value}`;
      })
      .join(',')}}`,
  }));

/** The oracle's rounded fields of a row, from its members: the last one of each name counts. */
function expectedRounded(members: readonly Member[]): string[] {
  const last = new Map(members.map((m) => [m.field, m]));
  const rounded: string[] = [];
  for (const field of INTEGER_SHIFT_FIELDS) {
    const member = last.get(field);
    if (member === undefined || member.nested) continue;
    const value = JSON.parse(member.literal) as number;
    if (Number.isSafeInteger(value) && !denotes(member.literal, value)) rounded.push(field);
  }
  return rounded.sort();
}

describe('isExactly', () => {
  it.each([
    ['1', 1, true],
    ['-0', 0, true],
    ['0e-400', 0, true],
    ['1.0', 1, true],
    ['1E3', 1000, true],
    ['100e-2', 1, true],
    ['9007199254740991', 9007199254740991, true],
    ['9007199254740990.9', 9007199254740991, false],
    ['1.000000000000000001', 1, false],
    ['1e-400', 0, false],
    ['10000000000000001e-16', 1, false],
    ['9007199254740993', 9007199254740992, false],
    ['1e99999999999', 1, false],
  ])('%s is exactly %d: %s', (text, value, exact) => {
    expect(isExactly(text, value)).toBe(exact);
  });

  it('agrees with the oracle on every number that JSON.parse reads as a safe integer', () => {
    fc.assert(
      fc.property(literal, (text) => {
        const value = JSON.parse(text) as number;
        fc.pre(Number.isSafeInteger(value));
        expect(isExactly(text, value)).toBe(denotes(text, value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('roundedIntegerFields', () => {
  it('names exactly the integer fields whose number JSON.parse changed', () => {
    fc.assert(
      fc.property(row, ({ text, members }) => {
        const found = roundedIntegerFields(text, JSON.parse(text)).map((r) => r.field);
        expect(found.sort()).toEqual(expectedRounded(members));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives each number as written', () => {
    const text = '{"id" : 9007199254740990.9, "user_id":7,"duration":1e-400,"\\u0064uration":3.0}';
    expect(roundedIntegerFields(text, JSON.parse(text))).toEqual([
      { field: 'id', literal: '9007199254740990.9' },
    ]);
    const dup = '{"duration":3.0,"duration":1e-400}';
    expect(roundedIntegerFields(dup, JSON.parse(dup))).toEqual([{ field: 'duration', literal: '1e-400' }]);
  });
});
