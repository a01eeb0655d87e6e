// Whether the integers of a row are the upstream's integers. JSON.parse rounds a number it cannot
// hold exactly, without a word: 9007199254740993 becomes 9007199254740992 (past 2^53 not every
// integer is a double), 9007199254740990.9 becomes 9007199254740991, 1e-400 becomes 0. The first
// kind is plain from the value (it is not a safe integer, and the contract refuses it); the others
// look like any integer, so only the row's text can tell.
//
// Reading every row's text would cost about as much as parsing it, so a batch's text is probed
// first (mayHoldRoundedInteger) for what each such number must have: at least MIN_ROUNDED_DIGITS
// digits around a decimal point (a number with fewer, if not whole, is at least one unit in its
// last digit away from any whole number, and a double's 53 bits keep that apart), or a negative
// exponent (which can also underflow to 0). Whole numbers written as `1.0` or `1e3` are exact and
// kept. Only a batch that the probe flags has its rows' numbers read (roundedIntegerFields).

import { INTEGER_SHIFT_FIELDS } from '../domain/finished-shift.js';
import { objectNumberTexts } from '../domain/json-text.js';

/** A double keeps 15 significant decimal digits apart; a rounded fraction needs more. */
const MIN_ROUNDED_DIGITS = 15;

const INTEGER_FIELDS: ReadonlySet<string> = new Set(INTEGER_SHIFT_FIELDS);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * True unless `text` (JSON) certainly holds no integer field's number that JSON.parse rounded:
 * never false for one that does. Two indexOf walks over the text on the common path, which sees
 * only short fractions (coordinates, fractions of a second) and no negative exponent.
 */
export function mayHoldRoundedInteger(text: string): boolean {
  for (let dot = text.indexOf('.'); dot >= 0; dot = text.indexOf('.', dot + 1)) {
    // With >= 15 digits, 8 or more are on one side of the point: cheap to rule out the rest.
    if (!isDigit(text.charCodeAt(dot + 8)) && !isDigit(text.charCodeAt(dot - 8))) continue;
    if (!isDigit(text.charCodeAt(dot - 1)) || !isDigit(text.charCodeAt(dot + 1))) continue;
    let start = dot - 1;
    while (isDigit(text.charCodeAt(start - 1))) start--;
    let end = dot + 1;
    while (isDigit(text.charCodeAt(end))) end++;
    if (end - start - 1 < MIN_ROUNDED_DIGITS) continue;
    if (text.charCodeAt(start - 1) === MINUS) start--;
    if (mayBeIntegerMember(text, start)) return true;
  }
  for (let minus = text.indexOf('-'); minus >= 0; minus = text.indexOf('-', minus + 1)) {
    const e = text.charCodeAt(minus - 1);
    if ((e !== LOWER_E && e !== UPPER_E) || !isDigit(text.charCodeAt(minus - 2))) continue;
    let start = minus - 2;
    for (let c = text.charCodeAt(start - 1); isDigit(c) || c === DOT; c = text.charCodeAt(start - 1)) start--;
    if (text.charCodeAt(start - 1) === MINUS) start--;
    if (mayBeIntegerMember(text, start)) return true;
  }
  return false;
}

/** Whether the number at `start` may be the value of an integer field: `"<key>" : ` before it. */
function mayBeIntegerMember(text: string, start: number): boolean {
  let i = start - 1;
  while (isJsonWhitespace(text.charCodeAt(i))) i--;
  if (text.charCodeAt(i) !== COLON) return false;
  i--;
  while (isJsonWhitespace(text.charCodeAt(i))) i--;
  if (text.charCodeAt(i) !== QUOTE) return false;
  const open = text.lastIndexOf('"', i - 1);
  // An escaped quote or an escape in the key: too rare to decode here.
  if (open < 1 || text.charCodeAt(open - 1) === BACKSLASH) return true;
  const key = text.slice(open + 1, i);
  return INTEGER_FIELDS.has(key) || key.includes('\\');
}

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
