// Owns the period rules of an export definition: which business dates a run exports, computed from
// the run's local date alone (a day number; the caller finds it in the schedule's time zone), so
// that every rule is a pure function a property test can walk over centuries. "Yesterday" is the
// local date before the run's, whatever the hour: a run at 00:05 exports the day that just ended.

import { civilFromDays, daysFromCivil } from 'wfm-contract/civil-time';
import { periodFromDay, type Period } from '../domain/period.js';

/** A rule as parsed from its text (`yesterday`, `last-week`, `last-month`, `month-to-date`, `last-N-days`). */
export type PeriodRule =
  | { readonly kind: 'yesterday' }
  | { readonly kind: 'last-week' }
  | { readonly kind: 'last-month' }
  | { readonly kind: 'month-to-date' }
  | { readonly kind: 'last-days'; readonly days: number };

/** The rule names a definition may give, for messages. */
export const PERIOD_RULE_NAMES =
  'yesterday, last-week, last-month, month-to-date or last-N-days such as last-7-days';

const LAST_DAYS = /^last-([1-9][0-9]{0,3})-days$/;

/** The rule a text names, or undefined. N of last-N-days is 1 to 9999 (EXPORT_MAX_DAYS bounds it further). */
export function parsePeriodRule(text: string): PeriodRule | undefined {
  switch (text) {
    case 'yesterday':
    case 'last-week':
    case 'last-month':
    case 'month-to-date':
      return { kind: text };
    default: {
      const days = LAST_DAYS.exec(text)?.[1];
      return days === undefined ? undefined : { kind: 'last-days', days: Number(days) };
    }
  }
}

/** The rule as a definition writes it. */
export function periodRuleText(rule: PeriodRule): string {
  return rule.kind === 'last-days' ? `last-${rule.days}-days` : rule.kind;
}

/** What the rule exports, in words, for `exports check`. */
export function describePeriodRule(rule: PeriodRule): string {
  switch (rule.kind) {
    case 'yesterday':
      return "the day before the run's date";
    case 'last-week':
      return "Monday to Sunday of the week before the run's";
    case 'last-month':
      return "the calendar month before the run's";
    case 'month-to-date':
      return 'the 1st of the month through yesterday; on the 1st, the whole previous month';
    case 'last-days':
      return `the ${rule.days} days ending yesterday`;
  }
}

/** The most days one period of the rule can cover, compared with EXPORT_MAX_DAYS when a file is loaded. */
export function maxDaysOfRule(rule: PeriodRule): number {
  switch (rule.kind) {
    case 'yesterday':
      return 1;
    case 'last-week':
      return 7;
    case 'last-month':
    case 'month-to-date':
      return 31;
    case 'last-days':
      return rule.days;
  }
}

/** Day number of the first day of the month that holds `day`. */
function firstOfMonth(day: number): number {
  const { year, month } = civilFromDays(day);
  return daysFromCivil(year, month, 1);
}

/** Days since Monday of the ISO week that holds `day` (0 on a Monday, 6 on a Sunday); day 0 was a Thursday. */
function daysSinceMonday(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** The period a run on local date `runDay` (days since 1970-01-01) exports under `rule`. */
export function periodOfRule(rule: PeriodRule, runDay: number): Period {
  const yesterday = runDay - 1;
  switch (rule.kind) {
    case 'yesterday':
      return periodFromDay(yesterday);
    case 'last-week': {
      const monday = runDay - daysSinceMonday(runDay);
      return periodFromDay(monday - 7, monday - 1);
    }
    case 'last-month': {
      const first = firstOfMonth(runDay);
      return periodFromDay(firstOfMonth(first - 1), first - 1);
    }
    case 'month-to-date':
      // The month of yesterday: on the 1st that is the whole previous month.
      return periodFromDay(firstOfMonth(yesterday), yesterday);
    case 'last-days':
      return periodFromDay(runDay - rule.days, yesterday);
  }
}

/**
 * Every period one run exports: the rule's, then, for `yesterday` with look-back days, each of the
 * `lookbackDays` days before it as a one-day period of its own (the nightly run's way: shifts that
 * finish late reach the report after their day, so a day is exported again on the following runs).
 */
export function periodsOfRun(rule: PeriodRule, lookbackDays: number, runDay: number): Period[] {
  const period = periodOfRule(rule, runDay);
  if (rule.kind !== 'yesterday') return [period];
  const periods = [period];
  for (let back = 1; back <= lookbackDays; back++) periods.push(periodFromDay(runDay - 1 - back));
  return periods;
}
