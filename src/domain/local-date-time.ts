// The spec's LocalDateTime (ISO 8601 without a zone, optional fraction up to 9 digits) and
// Timestamp (with a Z), as strict patterns and as whole epoch seconds.

import { daysFromCivil, daysInMonth, formatDateTime, SECONDS_PER_DAY } from './civil-time.js';

export const LOCAL_DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

/**
 * Whole seconds since the epoch of a LocalDateTime read as UTC; the fraction is dropped, not
 * rounded. Undefined when the text is not a real date-time (2023-02-29, 24:00:00, 12:60...).
 */
export function parseLocalDateTimeSeconds(text: string): number | undefined {
  const m = LOCAL_DATE_TIME_PATTERN.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const hh = Number(m[4]);
  const mi = Number(m[5]);
  const ss = Number(m[6]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || hh > 23 || mi > 59 || ss > 59) {
    return undefined;
  }
  return daysFromCivil(y, mo, d) * SECONDS_PER_DAY + hh * 3600 + mi * 60 + ss;
}

/** A LocalDateTime (no fraction) of whole epoch seconds, as the upstream expects in filters. */
export function formatLocalDateTime(seconds: number): string {
  return formatDateTime(seconds, 'T');
}
