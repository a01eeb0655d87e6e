import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nightlyPeriods, scheduledAt } from '../../jobs/nightly.js';
import { localDay } from '../../src/definitions/zoned-time.js';
import { formatDay } from 'wfm-contract/civil-time';

const at = (iso: string): number => Date.parse(iso);
const days = (periods: { from: string; to: string }[]): string[] =>
  periods.map((p) => {
    expect(p.to).toBe(p.from);
    return p.from;
  });

describe('nightlyPeriods', () => {
  it('exports yesterday and the two days before it at 03:00 UTC', () => {
    expect(days(nightlyPeriods(at('2026-11-21T03:00:00Z'), 'UTC', 2))).toEqual([
      '2026-11-20',
      '2026-11-19',
      '2026-11-18',
    ]);
  });

  it('exports only yesterday when the look-back is 0', () => {
    expect(days(nightlyPeriods(at('2026-11-21T03:00:00Z'), 'UTC', 0))).toEqual(['2026-11-20']);
  });

  it('takes yesterday in the schedule zone, not in UTC (Auckland is already a day ahead)', () => {
    // 14:00 UTC on the 20th is 03:00 NZDT on the 21st.
    expect(days(nightlyPeriods(at('2026-11-20T14:00:00Z'), 'Pacific/Auckland', 1))).toEqual([
      '2026-11-20',
      '2026-11-19',
    ]);
  });

  it('takes yesterday in the schedule zone when the zone is behind UTC', () => {
    // 05:30 UTC on the 21st is 21:30 PST on the 20th.
    expect(days(nightlyPeriods(at('2026-11-21T05:30:00Z'), 'America/Los_Angeles', 0))).toEqual([
      '2026-11-19',
    ]);
  });

  it('runs right after spring-forward in Berlin on the right day', () => {
    // 2026-03-29 02:00 CET jumps to 03:00 CEST; 03:00 CEST is 01:00 UTC.
    expect(days(nightlyPeriods(at('2026-03-29T01:00:00Z'), 'Europe/Berlin', 2))).toEqual([
      '2026-03-28',
      '2026-03-27',
      '2026-03-26',
    ]);
  });

  it('runs right after fall-back in Los Angeles on the right day', () => {
    // 2026-11-01 02:00 PDT falls back to 01:00 PST; 03:00 PST is 11:00 UTC.
    expect(days(nightlyPeriods(at('2026-11-01T11:00:00Z'), 'America/Los_Angeles', 1))).toEqual([
      '2026-10-31',
      '2026-10-30',
    ]);
  });

  it('exports the day that just ended when the run is at local midnight', () => {
    // Midnight in Kolkata (+05:30) is 18:30 UTC the day before.
    expect(days(nightlyPeriods(at('2026-06-14T18:30:00Z'), 'Asia/Kolkata', 0))).toEqual(['2026-06-14']);
    expect(days(nightlyPeriods(at('2026-06-14T18:29:59.999Z'), 'Asia/Kolkata', 0))).toEqual(['2026-06-13']);
  });

  it('crosses month, year and leap-day boundaries', () => {
    expect(days(nightlyPeriods(at('2027-01-01T03:00:00Z'), 'UTC', 1))).toEqual(['2026-12-31', '2026-12-30']);
    expect(days(nightlyPeriods(at('2028-03-01T03:00:00Z'), 'UTC', 1))).toEqual(['2028-02-29', '2028-02-28']);
  });

  it('handles a zone whose midnight does not exist on a DST day (Santiago)', () => {
    // 2026-09-06 00:00 in America/Santiago jumps to 01:00 (-03); 03:00 local is 06:00 UTC.
    expect(days(nightlyPeriods(at('2026-09-06T06:00:00Z'), 'America/Santiago', 0))).toEqual(['2026-09-05']);
  });

  it('always gives consecutive days ending the local day before the run', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/New_York',
      'Asia/Kathmandu',
      'Pacific/Chatham',
      'Pacific/Kiritimati',
      'Pacific/Pago_Pago',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1990-01-01'), max: Date.parse('2080-01-01') }),
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 10 }),
        (ms, tz, lookback) => {
          const periods = nightlyPeriods(ms, tz, lookback);
          expect(periods).toHaveLength(lookback + 1);
          const local = new Intl.DateTimeFormat('en-CA', {
            timeZone: tz,
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
          }).format(ms);
          const today = localDay(ms, tz);
          expect(formatDay(today)).toBe(local);
          periods.forEach((p, i) => expect(p.from).toBe(formatDay(today - 1 - i)));
        },
      ),
    );
  });
});

describe('scheduledAt', () => {
  it('is the scheduler slot of the job, not when a worker picked it up', () => {
    expect(scheduledAt({ opts: { prevMillis: 1_000 }, timestamp: 500 })).toBe(1_000);
  });

  it('falls back to creation time plus delay for jobs without a slot', () => {
    expect(scheduledAt({ opts: { delay: 250 }, timestamp: 500 })).toBe(750);
  });
});
