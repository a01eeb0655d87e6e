// Whether the integers of a row are the upstream's integers. JSON.parse rounds a number it cannot
// hold exactly, without a word: 9007199254740993 becomes 9007199254740992 (past 2^53 not every
// integer is a double), 9007199254740990.9 becomes 9007199254740991, 1e-400 becomes 0. The first
// kind shows in the value (it is not a safe integer, which the contract refuses). The others look
// like any integer; only the row's text tells, so they are looked for where a row's text is read
// anyway (see the validate stage). Looking for them in every row would mean one more pass over
// all the text, a large share of what JSON.parse itself costs (docs/performance.md). Whole numbers written
// as `1.0` or `1e3` are exact and kept.

import { INTEGER_SHIFT_FIELDS } from 'wfm-contract/finished-shift';
import { objectNumberTexts } from '../domain/json-text.js';

const INTEGER_FIELDS: ReadonlySet<string> = new Set(INTEGER_SHIFT_FIELDS);

/** Whether the JSON number `literal` is exactly `value` (a whole number within ±(2^53−1)). */
export function isExactly(literal: string, value: number): boolean {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return false;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return value === 0;
  let power = Number(exponent) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  power += trailing;
  // Not whole, or at least 10^17: neither is a safe integer.
  if (power < 0 || digits.length + power > 17) return false;
  const exact = BigInt(digits) * 10n ** BigInt(power);
  return (sign === '-' ? -exact : exact) === BigInt(value);
}

/** An integer field whose number JSON.parse changed: the field, and the number as written. */
export interface RoundedInteger {
  readonly field: string;
  readonly literal: string;
}

/**
 * The integer fields of `row` (what JSON.parse made of `text`) that hold a safe integer which is
 * not the number written in `text`. Unsafe values are left to the contract, which refuses them.
 */
export function roundedIntegerFields(text: string, row: unknown): RoundedInteger[] {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return [];
  const values = row as Readonly<Record<string, unknown>>;
  const rounded: RoundedInteger[] = [];
  for (const [field, literal] of objectNumberTexts(text)) {
    const value = values[field];
    if (INTEGER_FIELDS.has(field) && Number.isSafeInteger(value) && !isExactly(literal, value as number))
      rounded.push({ field, literal });
  }
  return rounded;
}

/** The number `field` was written as in the object `text`, if it was a number. */
export function numberTextOf(text: string, field: string): string | undefined {
  return objectNumberTexts(text).get(field);
}
