// Calendar arithmetic on plain integers: proleptic Gregorian dates <-> days since 1970-01-01, and
// seconds since the epoch <-> wall-clock text. Nothing here reads the machine's time zone, so every
// output is identical under TZ=UTC and TZ=Asia/Kathmandu. Algorithms: Howard Hinnant, "chrono-
// compatible low-level date algorithms".

export const SECONDS_PER_DAY = 86_400;

/** Days since 1970-01-01 for year y, month m (1-12), day d (1-31). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** The calendar date of a day number (days since 1970-01-01). */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function pad4(n: number): string {
  return n >= 1000 ? String(n) : String(n).padStart(4, '0');
}

/** Day number of epoch seconds (floor, so negative seconds fall on the previous day). */
export function dayOfSeconds(seconds: number): number {
  return Math.floor(seconds / SECONDS_PER_DAY);
}

// The text formatters run for four date-times per row at hundreds of thousands of rows per second.
// An export spans few distinct days, so the date part is computed once per day and kept in a small
// bounded cache, and the time of day is two lookups in fixed tables instead of arithmetic and
// padding. test/civil-time.test.ts checks them against plain arithmetic from year 1 to 9999.

/** `HH:MM` of each minute of the day, and `:SS` of each second of a minute. */
const HOUR_MINUTE: readonly string[] = Array.from(
  { length: 1440 },
  (_, m) => `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}`,
);
const COLON_SECOND: readonly string[] = Array.from({ length: 60 }, (_, s) => `:${pad2(s)}`);

// Days cached per separator ('' for a bare date). A month's export touches ~31 days; the bound
// only matters for odd input, and a full cache is simply emptied.
const MAX_CACHED_DAYS = 4096;

function dayTextCache(suffix: string): (days: number) => string {
  const cache = new Map<number, string>();
  return (days) => {
    let text = cache.get(days);
    if (text === undefined) {
      if (cache.size >= MAX_CACHED_DAYS) cache.clear();
      const { year, month, day } = civilFromDays(days);
      text = `${pad4(year)}-${pad2(month)}-${pad2(day)}${suffix}`;
      cache.set(days, text);
    }
    return text;
  };
}

const bareDay = dayTextCache('');
const spaceDayPrefix = dayTextCache(' ');
const isoDayPrefix = dayTextCache('T');

function timeOfDay(seconds: number, days: number): string {
  const rest = seconds - days * SECONDS_PER_DAY;
  const minute = Math.floor(rest / 60);
  return (HOUR_MINUTE[minute] as string) + (COLON_SECOND[rest - minute * 60] as string);
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(days: number): string {
  return bareDay(days);
}

/** What separates the date from the time: a space for people, `T` for ISO 8601. */
export type DateTimeSeparator = ' ' | 'T';

/** `YYYY-MM-DD HH:MM:SS` (or with a `T`) of whole epoch seconds. */
export function formatDateTime(seconds: number, separator: DateTimeSeparator = ' '): string {
  const days = dayOfSeconds(seconds);
  const date = separator === ' ' ? spaceDayPrefix(days) : isoDayPrefix(days);
  return date + timeOfDay(seconds, days);
}

/** `YYYY-MM-DDTHH:MM:SSZ` of whole epoch seconds. */
export function formatUtc(seconds: number): string {
  const days = dayOfSeconds(seconds);
  return `${isoDayPrefix(days)}${timeOfDay(seconds, days)}Z`;
}

/** `+HH:MM` / `-HH:MM` of an offset in minutes. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Day number of a strict `YYYY-MM-DD`, or undefined when it is not a real calendar date. */
export function parseDay(text: string): number | undefined {
  const m = DATE_PATTERN.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  return daysFromCivil(y, mo, d);
}
