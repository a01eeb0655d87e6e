// Backfill flows against a real redis-server, an in-process worker and the sandbox: one export job
// per day under a parent that writes the index of the days' manifests; a day that fails for good
// fails the parent at once (no index, no hang); asking again for a finished backfill is a no-op
// unless forced.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueBackfill } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { EXPORT_QUEUE_NAME, JOB_NAMES } from '../../src/queue/queue-names.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { tempFolderForTest } from '../support/temp-folder.js';

const FROM = '2024-03-27';
const TO = '2024-03-29';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 600 })]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  sandbox.clearFaults();
  await harness?.stop();
  harness = undefined;
});

interface IndexShape {
  readonly backfill_job_id: string;
  readonly period: { from: string; to: string };
  readonly days: readonly {
    date: string;
    export_id: string;
    manifest_location: string;
    counts: { exported: number };
  }[];
  readonly totals: { exported: number };
  readonly index_location?: string;
}

describe('backfill', () => {
  it('exports each day as its own job and indexes their manifests when all are done', async () => {
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { WORKER_CONCURRENCY: '2' },
    });
    const h = harness;
    await h.startWorker();
    const outcome = await enqueueBackfill(
      h.producer.queue,
      h.producer.flows(),
      exportJobData(FROM, TO, ['csv']),
      h.queueConfig,
    );
    expect(outcome.created).toBe(true);
    expect(outcome.days.map((d) => d.date)).toEqual(['2024-03-27', '2024-03-28', '2024-03-29']);

    const done = await waitForJob(h.producer.queue, await h.events(), outcome.jobId);
    if (done.state !== 'completed') throw new Error(done.reason);
    const result = done.returnValue as IndexShape;
    const file = join(h.dest, `backfill-${FROM}_${TO}.json`);
    expect(result.index_location).toBe(file);
    const index = JSON.parse(readFileSync(file, 'utf8')) as IndexShape;
    expect(index).toEqual({ ...result, index_location: undefined });
    expect(index.backfill_job_id).toBe(outcome.jobId);
    expect(index.days.map((d) => d.date)).toEqual(outcome.days.map((d) => d.date));
    for (const day of index.days) {
      const manifest = JSON.parse(readFileSync(day.manifest_location, 'utf8')) as {
        export_id: string;
        period: { from: string };
      };
      expect(manifest).toMatchObject({ export_id: day.export_id, period: { from: day.date } });
    }
    expect(index.totals.exported).toBe(index.days.reduce((sum, d) => sum + d.counts.exported, 0));

    const again = await enqueueBackfill(
      h.producer.queue,
      h.producer.flows(),
      exportJobData(FROM, TO, ['csv']),
      h.queueConfig,
    );
    expect(again).toMatchObject({ jobId: outcome.jobId, created: false, state: 'completed' });
  });

  it('fails the backfill visibly when a day fails for good, and writes no index', async () => {
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { WORKER_CONCURRENCY: '1' },
    });
    const h = harness;
    // The first report request is refused: that day fails at once (401 is terminal).
    sandbox.setFaults({ wfm_timers: { failNext: 1, errorStatus: 401 } });
    await h.startWorker();
    const outcome = await enqueueBackfill(
      h.producer.queue,
      h.producer.flows(),
      exportJobData(FROM, TO, ['csv']),
      h.queueConfig,
    );
    const done = await waitForJob(h.producer.queue, await h.events(), outcome.jobId);
    expect(done.state).toBe('failed');
    const states = await Promise.all(
      outcome.days.map(async (d) => (await h.producer.queue.getJob(d.jobId))?.getState()),
    );
    expect(states.filter((s) => s === 'failed')).toHaveLength(1);
    const failedDay = await h.producer.queue.getJob(outcome.days[states.indexOf('failed')]?.jobId ?? '');
    expect(failedDay?.failedReason).toMatch(/^WFM_AUTH: /);
    expect(existsSync(join(h.dest, `backfill-${FROM}_${TO}.json`))).toBe(false);
  });

  it('writes no index outside EXPORT_DEST when a flow is put into Redis with the parent pointing elsewhere', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url });
    const h = harness;
    const outside = tempFolderForTest('outside-');
    await h.startWorker();
    // Children within EXPORT_DEST complete; only the parent's data names another folder.
    const flow = await h.producer.flows().add({
      name: JOB_NAMES.backfill,
      queueName: EXPORT_QUEUE_NAME,
      data: { ...exportJobData(FROM, FROM, ['csv']), dest: outside },
      opts: { jobId: 'hostile-backfill', attempts: 3 },
      children: [
        {
          name: JOB_NAMES.exportPeriod,
          queueName: EXPORT_QUEUE_NAME,
          data: exportJobData(FROM, FROM, ['csv']),
          opts: { jobId: 'hostile-backfill-day' },
        },
      ],
    });
    const done = await waitForJob(h.producer.queue, await h.events(), flow.job.id ?? '');
    expect(done).toEqual({ state: 'failed', reason: expect.stringMatching(/^DEST_NOT_ALLOWED: /) });
    expect((await h.producer.queue.getJob('hostile-backfill'))?.attemptsMade).toBe(1);
    expect(readdirSync(outside)).toEqual([]);
  });
});
