import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  maxDaysOfRule,
  parsePeriodRule,
  periodOfRule,
  periodRuleText,
  periodsOfRun,
  type PeriodRule,
} from '../../src/definitions/period-rule.js';

// The oracle is JavaScript's Date in UTC: day numbers and calendar fields by another road than
// civil-time's arithmetic.
const DAY_MS = 86_400_000;
const dayOf = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
const isoOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
const dateOf = (iso: string): Date => new Date(`${iso}T00:00:00Z`);
const lengthOf = (p: { from: string; to: string }): number => dayOf(p.to) - dayOf(p.from) + 1;

/** Run dates from 1900-01-01 to 2199-12-31. */
const runDay = fc.integer({ min: dayOf('1900-01-01'), max: dayOf('2199-12-31') });
const rule: fc.Arbitrary<PeriodRule> = fc.oneof(
  fc.constantFrom<PeriodRule>(
    { kind: 'yesterday' },
    { kind: 'last-week' },
    { kind: 'last-month' },
    { kind: 'month-to-date' },
  ),
  fc.integer({ min: 1, max: 9999 }).map((days): PeriodRule => ({ kind: 'last-days', days })),
);

const on = (text: string, run: string) => {
  const parsed = parsePeriodRule(text);
  if (parsed === undefined) throw new Error(`${text} is not a rule`);
  return periodOfRule(parsed, dayOf(run));
};

describe('period rules', () => {
  it('exports the day before the run date as yesterday', () => {
    expect(on('yesterday', '2026-01-01')).toEqual({ from: '2025-12-31', to: '2025-12-31' });
    expect(on('yesterday', '2024-03-01')).toEqual({ from: '2024-02-29', to: '2024-02-29' });
  });

  it('exports Monday to Sunday of the week before the run date as last-week', () => {
    // 2026-11-30 is a Monday, 2026-11-29 a Sunday.
    expect(on('last-week', '2026-11-30')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    expect(on('last-week', '2026-11-29')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    // Across a year end: ISO week 1 of 2026 starts on Monday 2025-12-29.
    expect(on('last-week', '2026-01-07')).toEqual({ from: '2025-12-29', to: '2026-01-04' });
  });

  it('exports the calendar month before the run date as last-month', () => {
    expect(on('last-month', '2026-01-15')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    expect(on('last-month', '2024-03-31')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(on('last-month', '2026-03-01')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
  });

  it('exports the 1st through yesterday as month-to-date, and the whole previous month on the 1st', () => {
    expect(on('month-to-date', '2026-11-27')).toEqual({ from: '2026-11-01', to: '2026-11-26' });
    expect(on('month-to-date', '2026-11-02')).toEqual({ from: '2026-11-01', to: '2026-11-01' });
    expect(on('month-to-date', '2024-03-01')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(on('month-to-date', '2026-01-01')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
  });

  it('exports the N days ending yesterday as last-N-days', () => {
    expect(on('last-7-days', '2026-01-03')).toEqual({ from: '2025-12-27', to: '2026-01-02' });
    expect(on('last-1-days', '2026-01-03')).toEqual({ from: '2026-01-02', to: '2026-01-02' });
  });

  it('reads only the rules it names, and writes each back as it was read (property)', () => {
    for (const text of [
      '',
      'Yesterday',
      'last-0-days',
      'last-07-days',
      'last-10000-days',
      'last-x-days',
      'week',
    ])
      expect(parsePeriodRule(text), text).toBeUndefined();
    fc.assert(
      fc.property(rule, (r) => {
        expect(parsePeriodRule(periodRuleText(r))).toEqual(r);
      }),
    );
  });

  it('ends every period before the run date, within the longest the rule announces (property)', () => {
    fc.assert(
      fc.property(rule, runDay, (r, run) => {
        const period = periodOfRule(r, run);
        expect(dayOf(period.to)).toBeLessThan(run);
        expect(dayOf(period.from)).toBeLessThanOrEqual(dayOf(period.to));
        expect(lengthOf(period)).toBeLessThanOrEqual(maxDaysOfRule(r));
      }),
      { numRuns: 3000 },
    );
  });

  it('makes last-week seven days from a Monday to the Sunday before the run date’s week (property)', () => {
    fc.assert(
      fc.property(runDay, (run) => {
        const period = periodOfRule({ kind: 'last-week' }, run);
        expect(lengthOf(period)).toBe(7);
        expect(dateOf(period.from).getUTCDay()).toBe(1);
        expect(dateOf(period.to).getUTCDay()).toBe(0);
        // The day after it is the Monday of the run date's own week.
        const gap = run - dayOf(period.to);
        expect(gap).toBeGreaterThanOrEqual(1);
        expect(gap).toBeLessThanOrEqual(7);
        expect(new Date((dayOf(period.to) + 1) * DAY_MS).getUTCDay()).toBe(1);
      }),
      { numRuns: 3000 },
    );
  });

  it('makes last-month the whole month before the run date’s month (property)', () => {
    fc.assert(
      fc.property(runDay, (run) => {
        const period = periodOfRule({ kind: 'last-month' }, run);
        const date = new Date(run * DAY_MS);
        const firstOfRunMonth = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
        const firstOfPrevious = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1) / DAY_MS;
        expect(period).toEqual({ from: isoOf(firstOfPrevious), to: isoOf(firstOfRunMonth - 1) });
      }),
      { numRuns: 3000 },
    );
  });

  it('makes month-to-date the 1st through yesterday, and the previous month on the 1st (property)', () => {
    fc.assert(
      fc.property(runDay, (run) => {
        const period = periodOfRule({ kind: 'month-to-date' }, run);
        const date = new Date(run * DAY_MS);
        if (date.getUTCDate() === 1) {
          expect(period).toEqual(periodOfRule({ kind: 'last-month' }, run));
        } else {
          expect(period.from).toBe(isoOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS));
          expect(period.to).toBe(isoOf(run - 1));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('makes last-N-days N days ending yesterday (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), runDay, (days, run) => {
        const period = periodOfRule({ kind: 'last-days', days }, run);
        expect(lengthOf(period)).toBe(days);
        expect(period.to).toBe(isoOf(run - 1));
      }),
      { numRuns: 2000 },
    );
  });

  it('exports yesterday, then each look-back day before it as a day of its own (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), runDay, (lookback, run) => {
        const periods = periodsOfRun({ kind: 'yesterday' }, lookback, run);
        expect(periods).toHaveLength(lookback + 1);
        periods.forEach((p, back) =>
          expect(p).toEqual({ from: isoOf(run - 1 - back), to: isoOf(run - 1 - back) }),
        );
      }),
    );
    expect(periodsOfRun({ kind: 'last-week' }, 0, dayOf('2026-11-30'))).toEqual([
      { from: '2026-11-23', to: '2026-11-29' },
    ]);
  });
});
