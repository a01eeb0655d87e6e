// Owns what an instant is in an IANA time zone: its local date (the day a period rule counts from)
// and its wall-clock time with the zone's offset (how `exports check` shows a next run). Intl knows
// the zones and their daylight-saving rules; the machine's own zone plays no part.

import { daysFromCivil, formatDay, formatOffset, SECONDS_PER_DAY } from 'wfm-contract/civil-time';

/** Whether `tz` is a time zone Intl (and so cron-parser and BullMQ) knows. */
export function isTimeZone(tz: string): boolean {
  if (tz.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(tz: string): Intl.DateTimeFormat {
  let format = formats.get(tz);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    });
    formats.set(tz, format);
  }
  return format;
}

export interface ZonedTime {
  /** The local date, as days since 1970-01-01. */
  readonly day: number;
  /** Seconds since local midnight. */
  readonly secondOfDay: number;
  /** Local time minus UTC, in minutes (+60 for Europe/Berlin in winter). */
  readonly offsetMinutes: number;
}

/** The local date, time of day and offset of `ms` (milliseconds since the epoch) in `tz`. */
export function zonedTime(ms: number, tz: string): ZonedTime {
  const parts = formatFor(tz).formatToParts(ms);
  const part = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value);
  const year = parts.find((p) => p.type === 'era')?.value === 'BC' ? 1 - part('year') : part('year');
  const day = daysFromCivil(year, part('month'), part('day'));
  const secondOfDay = part('hour') * 3600 + part('minute') * 60 + part('second');
  const utcSeconds = Math.floor(ms / 1000);
  const offsetMinutes = Math.round((day * SECONDS_PER_DAY + secondOfDay - utcSeconds) / 60);
  return { day, secondOfDay, offsetMinutes };
}

/** The local date of `ms` in `tz`, as days since 1970-01-01: what a run's period rule counts from. */
export function localDay(ms: number, tz: string): number {
  return zonedTime(ms, tz).day;
}

/** `YYYY-MM-DD HH:MM +HH:MM`: `ms` on a wall clock in `tz`, with the offset that day. */
export function formatZoned(ms: number, tz: string): string {
  const { day, secondOfDay, offsetMinutes } = zonedTime(ms, tz);
  const hh = String(Math.floor(secondOfDay / 3600)).padStart(2, '0');
  const mm = String(Math.floor((secondOfDay % 3600) / 60)).padStart(2, '0');
  const ss = secondOfDay % 60;
  const seconds = ss === 0 ? '' : `:${String(ss).padStart(2, '0')}`;
  return `${formatDay(day)} ${hh}:${mm}${seconds} ${formatOffset(offsetMinutes)}`;
}
