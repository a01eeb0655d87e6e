// The cell texts of cell-text.ts written straight into bytes, for the CSV encoder: a record's
// numbers, dates, times and offsets go into its buffer digit by digit, with no string made for
// them, and its texts as UTF-8 by a loop that needs no second pass to know their length. Strings
// per cell, joined and then encoded, were the largest cost of an export thread's row
// (docs/performance.md, "Where an export thread's CPU goes").
//
// cellFormatter stays the definition: a writer handles the values a row has (whole seconds, safe
// integers, booleans) itself and writes anything else as cellFormatter's text, so a value of the
// wrong type throws the same CellValueError. test/render/cell-bytes.test.ts holds every writer to
// cellFormatter byte for byte on arbitrary values.

import { formatDay, SECONDS_PER_DAY } from 'wfm-contract/civil-time';
import type { CellValue, ColumnKind } from '../domain/column.js';
import { cellFormatter, type CellFormat, type CellTextOptions } from './cell-text.js';

/**
 * Writes the UTF-8 bytes of a cell's text into `target` from `at` and returns the offset after them,
 * or -1 when they might not fit (what was written past `at` is then garbage).
 */
export type CellWriter = (value: CellValue, target: Uint8Array, at: number) => number;

const ZERO = 0x30;
const MINUS = 0x2d;
const PLUS = 0x2b;
const COLON = 0x3a;
const SPACE = 0x20;
const LETTER_T = 0x54;
const LETTER_Z = 0x5a;
const DOT = 0x2e;
const COMMA = 0x2c;
const TRUE_BYTES = [0x74, 0x72, 0x75, 0x65];
const FALSE_BYTES = [0x66, 0x61, 0x6c, 0x73, 0x65];

/** Most bytes a safe integer takes: a sign and 16 digits. */
const MAX_INTEGER_BYTES = 17;

/**
 * The UTF-8 bytes of `text`, as Buffer.write writes them (an unpaired surrogate becomes U+FFFD,
 * EF BF BD), or -1 when `target` might not have room (3 bytes per UTF-16 unit).
 */
export function writeUtf8(text: string, target: Uint8Array, at: number): number {
  const length = text.length;
  if (at + 3 * length > target.length) return -1;
  let i = at;
  for (let k = 0; k < length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x80) {
      target[i++] = c;
    } else {
      const before = i;
      i = writeNonAscii(text, k, c, target, i);
      // Four bytes: a surrogate pair, two units.
      if (i - before === 4) k++;
    }
  }
  return i;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * The bytes of the non-ASCII unit `c` at `k` of `text` (with the next unit when they make a
 * surrogate pair: then four bytes), written at `i`; returns the offset after them.
 */
export function writeNonAscii(text: string, k: number, c: number, target: Uint8Array, i: number): number {
  if (c < 0x800) {
    target[i] = 0xc0 | (c >> 6);
    target[i + 1] = 0x80 | (c & 0x3f);
    return i + 2;
  }
  if (c >= 0xd800 && c <= 0xdfff) {
    const next = text.charCodeAt(k + 1);
    if (c < 0xdc00 && isLowSurrogate(next)) {
      const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
      target[i] = 0xf0 | (point >> 18);
      target[i + 1] = 0x80 | ((point >> 12) & 0x3f);
      target[i + 2] = 0x80 | ((point >> 6) & 0x3f);
      target[i + 3] = 0x80 | (point & 0x3f);
      return i + 4;
    }
    // Unpaired: U+FFFD.
    target[i] = 0xef;
    target[i + 1] = 0xbf;
    target[i + 2] = 0xbd;
    return i + 3;
  }
  target[i] = 0xe0 | (c >> 12);
  target[i + 1] = 0x80 | ((c >> 6) & 0x3f);
  target[i + 2] = 0x80 | (c & 0x3f);
  return i + 3;
}

/** The digits of a safe integer (String(n)), with room for MAX_INTEGER_BYTES checked by the caller. */
function writeInteger(n: number, target: Uint8Array, at: number): number {
  let i = at;
  let rest = n;
  if (rest < 0) {
    target[i++] = MINUS;
    rest = -rest;
  }
  let digits = 1;
  for (let power = 10; power <= rest; power *= 10) digits++;
  const end = i + digits;
  for (let d = end - 1; d >= i; d--) {
    const next = Math.floor(rest / 10);
    target[d] = ZERO + (rest - next * 10);
    rest = next;
  }
  return end;
}

/** What the number writers return for a value they leave to cellFormatter's text. */
const NOT_SHORT = -2;

/**
 * Past this, a number's scaled value m = |n| · 10^f is not held exactly enough for Math.round to
 * find m for sure; the number writers leave such values to cellFormatter's text.
 */
const SCALED_LIMIT = 2 ** 45;
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, f) => 10 ** f);

/** Decimals tried first: coordinates come with up to 6 (a tenth of a metre). */
const USUAL_DECIMALS = 6;

/**
 * plainNumber(n) (String's shortest round-trip text) for a finite n of 1e-6 <= |n| < 2^45 whose
 * text has few decimals (coordinates), or NOT_SHORT. The text with the fewest decimals f that
 * reads back as n is the shortest one: its m = |n| · 10^f is found by Math.round, and m / 10^f is
 * the correctly rounded quotient, which is what reading the text gives. While m < 2^45 the scaled
 * product is off by far less than 0.5 and no other m of the same f reads back as n (10^-f is more
 * than n's spacing), so the text is unique and equals String(n). For the same reason, when n has
 * a text of USUAL_DECIMALS, its shortest one is that m without its trailing zeros.
 */
function writeShortNumber(n: number, point: number, target: Uint8Array, at: number): number {
  if (n === 0) {
    if (at + 1 > target.length) return -1;
    target[at] = ZERO;
    return at + 1;
  }
  const abs = n < 0 ? -n : n;
  if (!(abs >= 1e-6)) return NOT_SHORT;
  let from = 0;
  const usual = POWERS_OF_TEN[USUAL_DECIMALS] as number;
  if (abs * usual < SCALED_LIMIT) {
    let m = Math.round(abs * usual);
    if (m / usual === abs) {
      let f = USUAL_DECIMALS;
      while (f > 0 && m % 10 === 0) {
        m /= 10;
        f--;
      }
      return writeScaled(m, f, n < 0, point, target, at);
    }
    // No text of USUAL_DECIMALS, so none of fewer either.
    from = USUAL_DECIMALS + 1;
  }
  for (let f = from; f < POWERS_OF_TEN.length; f++) {
    const power = POWERS_OF_TEN[f] as number;
    const scaled = abs * power;
    if (!(scaled < SCALED_LIMIT)) return NOT_SHORT;
    const m = Math.round(scaled);
    if (m / power === abs) return writeScaled(m, f, n < 0, point, target, at);
  }
  return NOT_SHORT;
}

/**
 * n.toFixed(places) for a finite n that is a whole number of 10^-places (the decimal and rate
 * columns hold rounded values), or NOT_SHORT: then m = n · 10^places is the integer toFixed picks.
 */
function writeFixedNumber(n: number, places: number, point: number, target: Uint8Array, at: number): number {
  const power = POWERS_OF_TEN[places];
  if (power === undefined) return NOT_SHORT;
  const abs = n < 0 ? -n : n;
  const scaled = abs * power;
  if (!(scaled < SCALED_LIMIT)) return NOT_SHORT;
  const m = Math.round(scaled);
  return m / power === abs ? writeScaled(m, places, n < 0, point, target, at) : NOT_SHORT;
}

/** m / 10^decimals as digits: the integer part (at least `0`), the point and `decimals` digits. */
function writeScaled(
  m: number,
  decimals: number,
  negative: boolean,
  point: number,
  target: Uint8Array,
  at: number,
): number {
  // A sign, 14 digits of m < 2^45, a point and a zero before it.
  if (at + decimals + 17 > target.length) return -1;
  let i = at;
  if (negative) target[i++] = MINUS;
  const power = POWERS_OF_TEN[decimals] as number;
  const whole = Math.floor(m / power);
  i = writeInteger(whole, target, i);
  if (decimals === 0) return i;
  target[i++] = point;
  let fraction = m - whole * power;
  for (let d = i + decimals - 1; d >= i; d--) {
    const next = Math.floor(fraction / 10);
    target[d] = ZERO + (fraction - next * 10);
    fraction = next;
  }
  return i + decimals;
}

/**
 * String(n) of a finite number, as bytes (a sheet cell's value): a safe integer digit by digit, a
 * number of few decimals as plainNumber finds it, anything else through String. Returns -1 when
 * it might not fit.
 */
export function writeNumber(n: number, target: Uint8Array, at: number): number {
  if (Number.isSafeInteger(n))
    return at + MAX_INTEGER_BYTES > target.length ? -1 : writeInteger(n, target, at);
  const end = writeShortNumber(n, DOT, target, at);
  return end === NOT_SHORT ? writeAscii(String(n), target, at) : end;
}

/** Two digits of 0..99. */
function writeTwoDigits(n: number, target: Uint8Array, at: number): void {
  const tens = Math.floor(n / 10);
  target[at] = ZERO + tens;
  target[at + 1] = ZERO + (n - tens * 10);
}

/**
 * A text of single-byte characters (a date, a number's text, markup), with `.` as `point` when
 * given; -1 when it might not fit.
 */
export function writeAscii(text: string, target: Uint8Array, at: number, point = DOT): number {
  const length = text.length;
  if (at + length > target.length) return -1;
  for (let k = 0; k < length; k++) {
    const c = text.charCodeAt(k);
    target[at + k] = c === DOT ? point : c;
  }
  return at + length;
}

/** `YYYY-MM-DD` + separator + `HH:MM:SS` (+ `Z`) of whole epoch seconds, as formatDateTime/formatUtc. */
function writeDateTime(
  seconds: number,
  separator: number,
  zulu: boolean,
  target: Uint8Array,
  at: number,
): number {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  const date = formatDay(days);
  let i = writeAscii(date, target, at);
  if (i < 0 || i + 10 > target.length) return -1;
  const rest = seconds - days * SECONDS_PER_DAY;
  const hours = Math.floor(rest / 3600);
  const minutes = Math.floor((rest - hours * 3600) / 60);
  target[i] = separator;
  writeTwoDigits(hours, target, i + 1);
  target[i + 3] = COLON;
  writeTwoDigits(minutes, target, i + 4);
  target[i + 6] = COLON;
  writeTwoDigits(rest - hours * 3600 - minutes * 60, target, i + 7);
  i += 9;
  if (zulu) target[i++] = LETTER_Z;
  return i;
}

/** `+HH:MM` / `-HH:MM` of minutes, as formatOffset (more than two hour digits when there are). */
function writeOffset(minutes: number, target: Uint8Array, at: number): number {
  const abs = Math.abs(minutes);
  const hours = Math.floor(abs / 60);
  target[at] = minutes < 0 ? MINUS : PLUS;
  let i = at + 1;
  if (hours < 10) {
    target[i++] = ZERO;
    target[i++] = ZERO + hours;
  } else {
    i = writeInteger(hours, target, i);
  }
  target[i] = COLON;
  writeTwoDigits(abs - hours * 60, target, i + 1);
  return i + 3;
}

/**
 * The writer of one column of a kind other than text (whose quoting is the CSV encoder's): call it
 * once per column, then once per cell.
 */
export function cellWriter(
  format: CellFormat & { kind: Exclude<ColumnKind, 'text'> },
  options: CellTextOptions,
): CellWriter {
  const formatted = cellFormatter(format, options);
  const point = (options.decimalSeparator ?? '.') === ',' ? COMMA : DOT;
  // Anything a writer does not handle itself: cellFormatter's text, or its CellValueError.
  const asFormatted: CellWriter = (value, target, at) => writeUtf8(formatted(value), target, at);
  const wholeNumber =
    (write: (n: number, target: Uint8Array, at: number) => number, room: number): CellWriter =>
    (value, target, at) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return asFormatted(value, target, at);
      return at + room > target.length ? -1 : write(value, target, at);
    };
  switch (format.kind) {
    case 'integer':
    case 'duration':
      return wholeNumber(writeInteger, MAX_INTEGER_BYTES);
    case 'date':
      return (value, target, at) =>
        typeof value === 'number' && Number.isSafeInteger(value)
          ? writeAscii(formatDay(value), target, at)
          : asFormatted(value, target, at);
    case 'localDateTime':
      return (value, target, at) =>
        typeof value === 'number' && Number.isSafeInteger(value)
          ? writeDateTime(value, SPACE, false, target, at)
          : asFormatted(value, target, at);
    case 'utcDateTime':
      return (value, target, at) =>
        typeof value === 'number' && Number.isSafeInteger(value)
          ? writeDateTime(value, LETTER_T, true, target, at)
          : asFormatted(value, target, at);
    case 'offset':
      // A sign, the hours' digits, a colon and two digits.
      return wholeNumber(writeOffset, MAX_INTEGER_BYTES + 4);
    case 'boolean':
      return (value, target, at) => {
        if (typeof value !== 'boolean') return value === null ? at : asFormatted(value, target, at);
        const bytes = value ? TRUE_BYTES : FALSE_BYTES;
        if (at + bytes.length > target.length) return -1;
        for (let k = 0; k < bytes.length; k++) target[at + k] = bytes[k] as number;
        return at + bytes.length;
      };
    case 'number':
      return (value, target, at) => {
        if (typeof value !== 'number') return asFormatted(value, target, at);
        const end = writeShortNumber(value, point, target, at);
        return end === NOT_SHORT ? asFormatted(value, target, at) : end;
      };
    case 'decimal':
    case 'rate': {
      const places = format.places ?? 0;
      return (value, target, at) => {
        if (typeof value !== 'number') return asFormatted(value, target, at);
        const end = writeFixedNumber(value, places, point, target, at);
        return end === NOT_SHORT ? asFormatted(value, target, at) : end;
      };
    }
  }
}
