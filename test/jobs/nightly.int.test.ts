// The nightly schedule against a real redis-server: the nightly definition's Job Scheduler
// (`export:nightly`, made of NIGHTLY_*) registered with the right next run in a non-UTC zone, and the days a nightly run enqueues (yesterday in that zone plus the
// look-back days), idempotent when the run is retried and re-exported by the next night's run.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconcileSchedules } from '../../jobs/scheduled-export.js';
import type { ScheduleConfig } from '../../src/config/schedule-config.js';
import { requireExportDefinitions } from '../../src/definitions/load-export-definitions.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { exportJobId } from '../../src/queue/export-job-id.js';
import { definitionSchedulerId, JOB_NAMES } from '../../src/queue/queue-names.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 200 })]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const NIGHTLY_SCHEDULER_ID = definitionSchedulerId('nightly');

/** The nightly schedule as a worker with these settings keeps it. */
async function upsertNightlySchedule(
  queue: Harness['producer']['queue'],
  schedule: ScheduleConfig,
  settings: Harness['queueConfig'],
): Promise<void> {
  const exportConfig = harness?.exportConfig;
  if (exportConfig === undefined) throw new Error('no harness');
  await reconcileSchedules(queue, await requireExportDefinitions({ schedule, exportConfig }), settings);
}

/** The next 03:00 in Asia/Kolkata (UTC+05:30, no DST) after `now`: 21:30 UTC. */
function nextKolkataThreeAm(now: number): number {
  const day = Math.floor(now / 86_400_000) * 86_400_000;
  const candidate = day + (21 * 60 + 30) * 60_000;
  return candidate > now ? candidate : candidate + 86_400_000;
}

describe('nightly schedule', () => {
  it('registers one scheduler whose next run is 03:00 in its zone', async () => {
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { NIGHTLY_ENABLED: 'true', NIGHTLY_TZ: 'Asia/Kolkata' },
    });
    const { queue } = harness.producer;
    const before = Date.now();
    await upsertNightlySchedule(queue, harness.schedule, harness.queueConfig);
    await upsertNightlySchedule(queue, harness.schedule, harness.queueConfig);
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toHaveLength(1);
    const scheduler = await queue.getJobScheduler(NIGHTLY_SCHEDULER_ID);
    expect(scheduler).toMatchObject({
      pattern: '0 3 * * *',
      tz: 'Asia/Kolkata',
      name: JOB_NAMES.scheduledExport,
    });
    const expected = nextKolkataThreeAm(before);
    // The upsert may straddle 21:30:00 UTC only if the test runs exactly then.
    expect([expected, nextKolkataThreeAm(Date.now())]).toContain(scheduler?.next);
    expect(new Date(scheduler?.next ?? 0).toISOString()).toMatch(/T21:30:00\.000Z$/);
    const delayed = await queue.getDelayed();
    expect(delayed.map((j) => j.name)).toEqual([JOB_NAMES.scheduledExport]);
    expect(delayed[0]?.opts.prevMillis).toBe(scheduler?.next);
  });

  it('follows a changed pattern and zone, and is removed when the nightly run is disabled', async () => {
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { NIGHTLY_ENABLED: 'true' },
    });
    const { queue } = harness.producer;
    await upsertNightlySchedule(queue, harness.schedule, harness.queueConfig);
    await upsertNightlySchedule(
      queue,
      { ...harness.schedule, cron: '30 1 * * *', tz: 'America/New_York' },
      harness.queueConfig,
    );
    const scheduler = await queue.getJobScheduler(NIGHTLY_SCHEDULER_ID);
    expect(scheduler).toMatchObject({ pattern: '30 1 * * *', tz: 'America/New_York' });
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/New_York',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(scheduler?.next);
    expect(local).toBe('01:30');
    await upsertNightlySchedule(queue, { ...harness.schedule, enabled: false }, harness.queueConfig);
    expect(await queue.getJobSchedulers()).toHaveLength(0);
  });
});

describe('nightly run', () => {
  it('enqueues yesterday in its zone and the look-back days, once per run, again the next night', async () => {
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { NIGHTLY_TZ: 'Asia/Kolkata', LOOKBACK_DAYS: '2', EXPORT_FORMATS: 'csv' },
    });
    const h = harness;
    const { queue } = h.producer;
    await h.startWorker();
    const events = await h.events();
    // Runs are due now and tomorrow: "finished before the run" compares with real completion times.
    const at = Date.now();
    const localToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(at);
    const today = Date.parse(`${localToday}T00:00:00Z`);
    const day = (back: number): string => new Date(today - back * 86_400_000).toISOString().slice(0, 10);
    const idOf = (d: string): string => exportJobId({ from: d, to: d }, ['csv'], undefined);

    const run = async (jobId: string, prevMillis: number) => {
      await queue.add(JOB_NAMES.nightly, {}, { jobId, prevMillis });
      const outcome = await waitForJob(queue, events, jobId);
      if (outcome.state !== 'completed') throw new Error(outcome.reason);
      const result = outcome.returnValue as {
        tz: string;
        scheduled_at: string;
        days: { date: string; job_id: string; created: boolean }[];
      };
      for (const d of result.days) {
        const exported = await waitForJob(queue, events, d.job_id);
        if (exported.state !== 'completed') throw new Error(exported.reason);
      }
      return result;
    };

    const first = await run('nightly-1', at);
    expect(first.tz).toBe('Asia/Kolkata');
    expect(first.scheduled_at).toBe(new Date(at).toISOString());
    expect(first.days).toEqual(
      [1, 2, 3].map((back) => ({ date: day(back), job_id: idOf(day(back)), created: true })),
    );
    const finished = async () =>
      Promise.all(first.days.map(async (d) => (await queue.getJob(d.job_id))?.finishedOn));
    const before = await finished();

    // The same run again (a retry): the days exported after it began are not exported twice.
    const retried = await run('nightly-1-retry', at);
    expect(retried.days.map((d) => d.created)).toEqual([false, false, false]);
    expect(await finished()).toEqual(before);

    // The next night re-exports the two days that overlap, and adds the new yesterday.
    const next = await run('nightly-2', at + 86_400_000);
    expect(next.days.map((d) => d.date)).toEqual([day(0), day(1), day(2)]);
    expect(next.days.map((d) => d.created)).toEqual([true, true, true]);
    expect((await queue.getJob(idOf(day(1))))?.finishedOn).toBeGreaterThan(before[0] ?? Infinity);
  });
});
