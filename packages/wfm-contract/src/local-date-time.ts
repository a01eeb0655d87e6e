// The spec's LocalDateTime text (ISO 8601 without a zone, optional fraction up to 9 digits; its
// pattern is in date-time-text.ts) <-> whole epoch seconds. The reading runs twice per row
// on the hot path, so it goes by charCodeAt with no regex and no allocation;
// test/local-date-time.test.ts checks it against the pattern.

import { daysFromCivil, daysInMonth, formatDateTime, SECONDS_PER_DAY } from './civil-time.js';

const ZERO = 48;

/** Value of `count` ASCII digits at `at`, or -1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** True when `text` matches LOCAL_DATE_TIME_PATTERN (YYYY-MM-DDTHH:MM:SS, optional .1-9 digits). */
export function isLocalDateTimeText(text: string): boolean {
  const length = text.length;
  if (length !== 19 && (length < 21 || length > 29)) return false;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  ) {
    return false;
  }
  if (digits(text, 0, 4) < 0 || digits(text, 5, 2) < 0 || digits(text, 8, 2) < 0) return false;
  if (digits(text, 11, 2) < 0 || digits(text, 14, 2) < 0 || digits(text, 17, 2) < 0) return false;
  if (length === 19) return true;
  if (text.charCodeAt(19) !== 46) return false; // .
  for (let i = 20; i < length; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return false;
  }
  return true;
}

/**
 * Whole seconds since the epoch of a LocalDateTime read as UTC; the fraction is dropped, not
 * rounded. Undefined when the text does not match the pattern or is not a real date-time
 * (2023-02-29, 24:00:00, 12:60...).
 */
export function parseLocalDateTimeSeconds(text: string): number | undefined {
  return isLocalDateTimeText(text) ? parsePatternedLocalDateTimeSeconds(text) : undefined;
}

/**
 * parseLocalDateTimeSeconds of a text already known to match the pattern (the reader or zod
 * checked it): undefined only when it is not a real date-time.
 */
export function parsePatternedLocalDateTimeSeconds(text: string): number | undefined {
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hours = digits(text, 11, 2);
  const minutes = digits(text, 14, 2);
  const seconds = digits(text, 17, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return daysFromCivil(year, month, day) * SECONDS_PER_DAY + hours * 3600 + minutes * 60 + seconds;
}

/** A LocalDateTime (no fraction) of whole epoch seconds, as the upstream expects in filters. */
export function formatLocalDateTime(seconds: number): string {
  return formatDateTime(seconds, 'T');
}
