import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { periodsOfRunAt } from '../../src/definitions/definition-runs.js';
import { cronProblem, nextRuns } from '../../src/definitions/next-runs.js';
import { formatZoned, isTimeZone, localDay } from '../../src/definitions/zoned-time.js';

const utc = (iso: string): number => Date.parse(iso);
const zoned = (runs: number[], tz: string): string[] => runs.map((ms) => formatZoned(ms, tz));

describe('next runs', () => {
  it('runs a 02:30 Europe/Berlin pattern at 03:30 on the night the clocks skip 02:00 to 03:00', () => {
    const runs = nextRuns({ cron: '30 2 * * *', tz: 'Europe/Berlin' }, utc('2026-03-27T12:00:00Z'), 4);
    expect(zoned(runs, 'Europe/Berlin')).toEqual([
      '2026-03-28 02:30 +01:00',
      '2026-03-29 03:30 +02:00',
      '2026-03-30 02:30 +02:00',
      '2026-03-31 02:30 +02:00',
    ]);
    expect(runs.map((ms) => new Date(ms).toISOString())).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ]);
  });

  it('runs a 02:30 Europe/Berlin pattern once on the night 02:30 happens twice', () => {
    const runs = nextRuns({ cron: '30 2 * * *', tz: 'Europe/Berlin' }, utc('2026-10-24T12:00:00Z'), 2);
    expect(zoned(runs, 'Europe/Berlin')).toEqual(['2026-10-25 02:30 +02:00', '2026-10-26 02:30 +01:00']);
  });

  it('counts the period of a run from its local date, not the UTC one', () => {
    // 23:30 UTC on the 29th is already Monday the 30th in Berlin: last week is the 23rd to the 29th.
    const at = utc('2026-11-29T23:30:00Z');
    const weekly = { period: { kind: 'last-week' } as const, lookbackDays: 0 };
    expect(periodsOfRunAt({ ...weekly, schedule: { cron: '30 0 * * 1', tz: 'Europe/Berlin' } }, at)).toEqual([
      { from: '2026-11-23', to: '2026-11-29' },
    ]);
    expect(periodsOfRunAt({ ...weekly, schedule: undefined }, at)).toEqual([
      { from: '2026-11-16', to: '2026-11-22' },
    ]);
    expect(localDay(at, 'Pacific/Kiritimati') - localDay(at, 'Pacific/Pago_Pago')).toBe(1);
  });

  it('shows a time with seconds only when it has them, with the offset of that day', () => {
    expect(formatZoned(utc('2026-07-01T10:15:07Z'), 'Asia/Kathmandu')).toBe('2026-07-01 16:00:07 +05:45');
    expect(formatZoned(utc('2026-07-01T10:15:00Z'), 'America/St_Johns')).toBe('2026-07-01 07:45 -02:30');
  });

  it('refuses what BullMQ could not schedule, or would schedule unlike `exports check`', () => {
    expect(cronProblem('0 3 * * *')).toBeUndefined();
    expect(cronProblem('0 0 3 * * 1')).toBeUndefined();
    expect(cronProblem('0 99 * * *')).toBe('Constraint error, got value 99 expected range 0-23');
    expect(cronProblem('0 3 * * * * *')).toBe('Invalid cron expression, too many fields');
    expect(cronProblem('0 0 30 2 *')).toBe('Invalid explicit day of month definition');
    expect(cronProblem('   ')).toBe('is empty');
    expect(cronProblem('H 3 * * *')).toBe(
      'has an H (hashed) field, which BullMQ would draw afresh at each run',
    );
  });

  it('knows the IANA zones Intl knows, and nothing else', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Europe/Berln')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('uses the cron-parser BullMQ uses: package.json pins the version bullmq depends on', () => {
    const require = createRequire(import.meta.url);
    const ours = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const bullmq = require('bullmq/package.json') as { dependencies: Record<string, string> };
    expect(ours.dependencies['cron-parser']).toBe(bullmq.dependencies['cron-parser']);
  });
});
