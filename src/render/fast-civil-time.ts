// Date and time text for the renderers, equal to domain/civil-time.ts's formatDay, formatDateTime
// and formatUtc (property-tested against them) but cheap enough for four date-times per row at
// hundreds of thousands of rows per second: an export spans few distinct days, so the date part
// is computed once per day and kept in a small bounded cache, and the time of day is two lookups
// in fixed tables instead of arithmetic and padding.

import { formatDay, SECONDS_PER_DAY } from '../domain/civil-time.js';

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

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
      text = formatDay(days) + suffix;
      cache.set(days, text);
    }
    return text;
  };
}

const bareDay = dayTextCache('');
const localDayPrefix = dayTextCache(' ');
const utcDayPrefix = dayTextCache('T');

function timeOfDay(seconds: number, days: number): string {
  const rest = seconds - days * SECONDS_PER_DAY;
  const minute = Math.floor(rest / 60);
  return (HOUR_MINUTE[minute] as string) + (COLON_SECOND[rest - minute * 60] as string);
}

/** `YYYY-MM-DD` of a day number; equals formatDay. */
export function formatDayFast(days: number): string {
  return bareDay(days);
}

/** `YYYY-MM-DD HH:MM:SS` of whole epoch seconds; equals formatDateTime(seconds). */
export function formatDateTimeFast(seconds: number): string {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  return localDayPrefix(days) + timeOfDay(seconds, days);
}

/** `YYYY-MM-DDTHH:MM:SSZ` of whole epoch seconds; equals formatUtc(seconds). */
export function formatUtcFast(seconds: number): string {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  return `${utcDayPrefix(days)}${timeOfDay(seconds, days)}Z`;
}
