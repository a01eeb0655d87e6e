// An export period: local business dates `from`..`to`, both inclusive. A shift belongs to the
// business date of its local start (start_time + start_time_offset). Offsets range from -12:00 to
// +14:00, so the upstream request is widened: start_time >= from - 14 h and < to + 1 day + 12 h.

import { InvalidRequestError } from '../errors.js';
import { civilFromDays, daysFromCivil, formatDay, parseDay, SECONDS_PER_DAY } from 'wfm-contract/civil-time';
import { formatLocalDateTime } from 'wfm-contract/local-date-time';

export const MIN_OFFSET_MINUTES = -720;
export const MAX_OFFSET_MINUTES = 840;

export interface Period {
  /** First business date, YYYY-MM-DD. */
  readonly from: string;
  /** Last business date (inclusive), YYYY-MM-DD. */
  readonly to: string;
}

export interface UtcWindow {
  /** Inclusive lower bound of start_time, as a LocalDateTime in UTC. */
  readonly startGte: string;
  /** Exclusive upper bound of start_time, as a LocalDateTime in UTC. */
  readonly startLt: string;
}

/** The names of a period's two fields as the asker wrote them: flags, or members of a body. */
export interface PeriodFields {
  readonly from: string;
  readonly to: string;
}

/** The command line's flags: the default. */
export const FLAG_PERIOD_FIELDS: PeriodFields = { from: '--from', to: '--to' };

export interface PeriodRules {
  readonly maxDays: number;
  /** Default FLAG_PERIOD_FIELDS: an API body or job data says `from` and `to`. */
  readonly fields?: PeriodFields;
  /** The end of the message past maxDays, after "has N days, "; default names EXPORT_MAX_DAYS. */
  readonly overLimit?: (maxDays: number) => string;
}

const exportOverLimit = (maxDays: number): string =>
  `more than the maximum of ${maxDays} (EXPORT_MAX_DAYS); split it or use backfill`;

/**
 * Parses and checks a period; `rules` (or a number: its maxDays) bounds its length, and names the
 * fields in messages as the asker wrote them. Throws InvalidRequestError.
 */
export function parsePeriod(from: string, to: string, rules: number | PeriodRules): Period {
  const {
    maxDays,
    fields = FLAG_PERIOD_FIELDS,
    overLimit = exportOverLimit,
  } = typeof rules === 'number' ? { maxDays: rules } : rules;
  const fromDay = parseDay(from);
  if (fromDay === undefined)
    throw new InvalidRequestError(`${fields.from} "${from}" is not a date (expected YYYY-MM-DD)`);
  const toDay = parseDay(to);
  if (toDay === undefined)
    throw new InvalidRequestError(`${fields.to} "${to}" is not a date (expected YYYY-MM-DD)`);
  if (fromDay > toDay) throw new InvalidRequestError(`${fields.from} ${from} is after ${fields.to} ${to}`);
  const days = toDay - fromDay + 1;
  if (days > maxDays) {
    throw new InvalidRequestError(`the period ${from}..${to} has ${days} days, ${overLimit(maxDays)}`);
  }
  return { from, to };
}

export function periodFromDay(fromDay: number, toDay: number = fromDay): Period {
  return { from: formatDay(fromDay), to: formatDay(toDay) };
}

/** First and last day numbers of a period (already validated). */
export function periodDayRange(period: Period): { readonly first: number; readonly last: number } {
  const first = parseDay(period.from);
  const last = parseDay(period.to);
  if (first === undefined || last === undefined) throw new InvalidRequestError('invalid period');
  return { first, last };
}

/** The business dates of a period, in order. */
export function periodDates(period: Period): string[] {
  const { first, last } = periodDayRange(period);
  const dates: string[] = [];
  for (let day = first; day <= last; day++) dates.push(formatDay(day));
  return dates;
}

/** The folder / key segment of a period: `<from>_<to>`. */
export function periodKey(period: Period): string {
  return `${period.from}_${period.to}`;
}

/** The UTC start_time range that can hold every shift of the period, whatever its offset. */
export function upstreamWindow(period: Period): UtcWindow {
  const { first, last } = periodDayRange(period);
  return {
    startGte: formatLocalDateTime(first * SECONDS_PER_DAY - MAX_OFFSET_MINUTES * 60),
    startLt: formatLocalDateTime((last + 1) * SECONDS_PER_DAY - MIN_OFFSET_MINUTES * 60),
  };
}

/**
 * Where the previous period of a definition's period is published, most likely first: the calendar
 * month before a whole month (`last-month`); otherwise the same number of days just before
 * (`yesterday`, `last-week`, `last-N-days`), and, for a period that starts on the 1st and ends
 * before the month does (`month-to-date`), the same days of the month before. Every definition's
 * periods follow from its rule, and a definition has a destination of its own, so the first of
 * these published under the definition's destination is its previous period; the period alone
 * tells them apart (a week that starts on the 1st finds the week before it first).
 */
export function previousPeriods(period: Period): Period[] {
  const { first, last } = periodDayRange(period);
  const start = civilFromDays(first);
  const end = civilFromDays(last);
  const monthStart = (year: number, month: number): number => daysFromCivil(year, month, 1);
  const startsMonth = start.day === 1;
  const nextMonth = end.month === 12 ? monthStart(end.year + 1, 1) : monthStart(end.year, end.month + 1);
  const endsMonth = last + 1 === nextMonth;
  if (startsMonth && endsMonth && start.year === end.year && start.month === end.month)
    return [
      periodFromDay(monthStart(civilFromDays(first - 1).year, civilFromDays(first - 1).month), first - 1),
    ];
  const days = last - first + 1;
  const candidates = [periodFromDay(first - days, first - 1)];
  if (startsMonth && start.year === end.year && start.month === end.month) {
    const before = civilFromDays(first - 1);
    const beforeFirst = monthStart(before.year, before.month);
    candidates.push(periodFromDay(beforeFirst, Math.min(beforeFirst + end.day - 1, first - 1)));
  }
  return candidates;
}
