// The export definitions' schedules and scheduled runs against a real redis-server and the sandbox
// over HTTP: Redis ends with exactly the file's `export:<name>` schedulers (the legacy one gone,
// others' untouched), whichever set reconciled last; a reload follows a changed file and keeps the
// schedules when the file is broken; a scheduled run enqueues its period's exports named after
// the definition (the legacy nightly definition: today's ids); an unknown definition fails at once.

import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  reconcileSchedules,
  schedulesLockKey,
  withSchedulesLock,
  type ScheduledExportResult,
} from '../../jobs/scheduled-export.js';
import { Redis } from 'ioredis';
import { requireExportDefinitions } from '../../src/definitions/load-export-definitions.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { exportJobId } from '../../src/queue/export-job-id.js';
import { JOB_NAMES, LEGACY_NIGHTLY_SCHEDULER_ID } from '../../src/queue/queue-names.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { parseManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { tempFolderForTest } from '../support/temp-folder.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 300 })]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** A definitions file in a folder of its own; write() replaces its text. */
function definitionsFile(text: string): { path: string; write(text: string): void } {
  const path = join(tempFolderForTest('exports-file-'), 'exports.yaml');
  writeFileSync(path, text);
  return { path, write: (next) => writeFileSync(path, next) };
}

const definition = (name: string, cron?: string, tz = 'UTC'): string[] => [
  `  - name: ${name}`,
  ...(cron === undefined ? [] : [`    schedule: { cron: "${cron}", tz: ${tz} }`]),
  '    period: yesterday',
];

async function schedulerIds(queue: Queue): Promise<string[]> {
  return (await queue.getJobSchedulers(0, -1)).map((s) => s.key).sort();
}

async function withFile(text: string): Promise<Harness> {
  const file = definitionsFile(text);
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: { EXPORTS_FILE: file.path },
  });
  return harness;
}

async function definitionsOf(h: Harness, text: string) {
  const file = definitionsFile(text);
  return requireExportDefinitions({
    schedule: { ...h.schedule, exportsFile: file.path },
    exportConfig: h.exportConfig,
  });
}

describe('reconcileSchedules', () => {
  it("keeps one scheduler per scheduled definition and removes the legacy one and stale export: ids, nobody else's", async () => {
    const h = await withFile('exports: []\n');
    const { queue } = h.producer;
    await queue.upsertJobScheduler(LEGACY_NIGHTLY_SCHEDULER_ID, { pattern: '0 3 * * *', tz: 'UTC' });
    await queue.upsertJobScheduler('export:gone', { pattern: '0 4 * * *', tz: 'UTC' });
    await queue.upsertJobScheduler('another-app', { pattern: '0 5 * * *', tz: 'UTC' });
    const set = await definitionsOf(
      h,
      yaml(
        'exports:',
        ...definition('kolkata', '0 3 * * *', 'Asia/Kolkata'),
        ...definition('hourly', '0 * * * *'),
        ...definition('on-demand'),
      ),
    );
    const reconciled = await reconcileSchedules(queue, set, h.queueConfig);
    expect(reconciled).toEqual({
      upserted: ['export:kolkata', 'export:hourly'],
      removed: expect.arrayContaining(['export:gone', LEGACY_NIGHTLY_SCHEDULER_ID]) as unknown,
    });
    expect(await schedulerIds(queue)).toEqual(['another-app', 'export:hourly', 'export:kolkata']);
    const kolkata = await queue.getJobScheduler('export:kolkata');
    expect(kolkata).toMatchObject({
      pattern: '0 3 * * *',
      tz: 'Asia/Kolkata',
      name: JOB_NAMES.scheduledExport,
    });
    expect(kolkata?.template?.data).toEqual({ export: 'kolkata' });
    expect(new Date(kolkata?.next ?? 0).toISOString()).toMatch(/T21:30:00\.000Z$/);
    // Idempotent: the same set again changes nothing.
    expect(await reconcileSchedules(queue, set, h.queueConfig)).toEqual({
      upserted: ['export:kolkata', 'export:hourly'],
      removed: [],
    });
  });

  it('leaves the schedules of the set reconciled last, whichever that is', async () => {
    const h = await withFile('exports: []\n');
    const { queue } = h.producer;
    const first = await definitionsOf(
      h,
      yaml('exports:', ...definition('a', '0 1 * * *'), ...definition('b', '0 2 * * *')),
    );
    const second = await definitionsOf(
      h,
      yaml('exports:', ...definition('b', '0 2 * * *'), ...definition('d', '0 4 * * *')),
    );
    await reconcileSchedules(queue, first, h.queueConfig);
    await reconcileSchedules(queue, second, h.queueConfig);
    expect(await schedulerIds(queue)).toEqual(['export:b', 'export:d']);
    await reconcileSchedules(queue, first, h.queueConfig);
    expect(await schedulerIds(queue)).toEqual(['export:a', 'export:b']);
  });
  it("under the lock, two workers reconciling different files at once leave one file's schedules, never a mix", async () => {
    const h = await withFile('exports: []\n');
    const { queue } = h.producer;
    const first = await definitionsOf(
      h,
      yaml('exports:', ...definition('a', '0 1 * * *'), ...definition('b', '0 2 * * *')),
    );
    const second = await definitionsOf(
      h,
      yaml('exports:', ...definition('c', '0 3 * * *'), ...definition('d', '0 4 * * *')),
    );
    const redisA = new Redis(redis.url);
    const redisB = new Redis(redis.url);
    try {
      for (let round = 0; round < 5; round++) {
        await Promise.all([
          withSchedulesLock(redisA, h.prefix, h.logger, () =>
            reconcileSchedules(queue, first, h.queueConfig),
          ),
          withSchedulesLock(redisB, h.prefix, h.logger, () =>
            reconcileSchedules(queue, second, h.queueConfig),
          ),
        ]);
        expect([
          ['export:a', 'export:b'],
          ['export:c', 'export:d'],
        ]).toContainEqual(await schedulerIds(queue));
      }
      expect(await redisA.exists(schedulesLockKey(h.prefix))).toBe(0);
    } finally {
      redisA.disconnect();
      redisB.disconnect();
    }
  });
});

describe('the worker and its definitions', () => {
  it('reconciles at start, follows a changed file on reload, and keeps the schedules when the file breaks', async () => {
    const file = definitionsFile(
      yaml('exports:', ...definition('a', '0 1 * * *'), ...definition('b', '0 2 * * *')),
    );
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { EXPORTS_FILE: file.path },
    });
    const h = harness;
    const { queue } = h.producer;
    const worker = await h.startWorker();
    expect(await schedulerIds(queue)).toEqual(['export:a', 'export:b']);

    file.write(yaml('exports:', ...definition('b', '30 2 * * *'), ...definition('c', '0 3 * * *')));
    expect(await worker.reloadDefinitions()).toBe(true);
    expect(await schedulerIds(queue)).toEqual(['export:b', 'export:c']);
    expect(await queue.getJobScheduler('export:b')).toMatchObject({ pattern: '30 2 * * *' });
    expect(worker.definitions().definitions.map((d) => d.name)).toEqual(['b', 'c']);

    file.write(
      yaml(
        'exports:',
        '  - name: c',
        '    schedule: { cron: "61 * * * *", tz: UTC }',
        '    period: yesterday',
      ),
    );
    const errorsBefore = h.logs.filter((l) => l.level >= 50).length;
    expect(await worker.reloadDefinitions()).toBe(false);
    expect(await schedulerIds(queue)).toEqual(['export:b', 'export:c']);
    expect(worker.definitions().definitions.map((d) => d.name)).toEqual(['b', 'c']);
    const errors = h.logs.filter((l) => l.level >= 50).slice(errorsBefore);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(
      new RegExp(
        `^export definitions not reloaded, the schedules in force are kept: ${file.path}:3:\\d+: exports\\[0\\]\\.schedule\\.cron: `,
      ),
    );
  });
});

describe('a scheduled run', () => {
  it("enqueues the period of the run's local date, named after the definition, into its dest", async () => {
    const h = await withFile(
      yaml(
        'exports:',
        '  - name: weekly',
        '    schedule: { cron: "0 6 * * 1", tz: Europe/Berlin }',
        '    period: last-week',
        '    formats: [csv]',
      ),
    );
    const { queue } = h.producer;
    await h.startWorker();
    const events = await h.events();
    // Monday 2024-04-01 06:00 in Berlin (CEST since 31 March).
    const at = Date.parse('2024-04-01T04:00:00Z');
    await queue.add(JOB_NAMES.scheduledExport, { export: 'weekly' }, { jobId: 'weekly-run', prevMillis: at });
    const outcome = await waitForJob(queue, events, 'weekly-run');
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    const dest = join(h.dest, 'weekly');
    const period = { from: '2024-03-25', to: '2024-03-31' };
    const jobId = exportJobId(period, ['csv'], dest, 'weekly');
    expect(outcome.returnValue as ScheduledExportResult).toEqual({
      export: 'weekly',
      scheduled_at: '2024-04-01T04:00:00.000Z',
      tz: 'Europe/Berlin',
      exports: [{ ...period, job_id: jobId, created: true }],
    });
    expect((await queue.getJob(jobId))?.data).toEqual({
      ...period,
      formats: ['csv'],
      dest,
      export: 'weekly',
    });
    const exported = await waitForJob(queue, events, jobId);
    if (exported.state !== 'completed') throw new Error(exported.reason);
    const folder = realpathSync(join(dest, '2024-03-25_2024-03-31'));
    expect(parseManifest(readFileSync(join(folder, 'manifest.json'), 'utf8')).period).toEqual(period);
  });

  it('of the nightly definition made of NIGHTLY_* queues the export jobs the nightly run always did', async () => {
    harness = await startHarness({
      redisUrl: redis.url,
      sandboxUrl: sandbox.url,
      env: { NIGHTLY_ENABLED: 'true', NIGHTLY_TZ: 'Pacific/Auckland', LOOKBACK_DAYS: '1' },
    });
    const h = harness;
    const { queue } = h.producer;
    await h.startWorker();
    expect(await schedulerIds(queue)).toEqual(['export:nightly']);
    const events = await h.events();
    // 14:00 UTC on the 29th is 03:00 on the 30th in Auckland: yesterday there is the 29th.
    await queue.add(
      JOB_NAMES.scheduledExport,
      { export: 'nightly' },
      { jobId: 'nightly-run', prevMillis: Date.parse('2024-03-29T14:00:00Z') },
    );
    const outcome = await waitForJob(queue, events, 'nightly-run');
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    const result = outcome.returnValue as ScheduledExportResult;
    expect(result.exports.map((e) => [e.from, e.to, e.job_id])).toEqual(
      ['2024-03-29', '2024-03-28'].map((d) => [d, d, exportJobId({ from: d, to: d }, ['csv'], undefined)]),
    );
    const first = result.exports[0];
    expect((await queue.getJob(first?.job_id ?? ''))?.data).toEqual({
      from: '2024-03-29',
      to: '2024-03-29',
      formats: ['csv'],
    });
    for (const e of result.exports) {
      const exported = await waitForJob(queue, events, e.job_id);
      if (exported.state !== 'completed') throw new Error(exported.reason);
    }
    // Into EXPORT_DEST itself, as before definitions.
    expect(readFileSync(join(h.dest, '2024-03-29_2024-03-29', 'manifest.json'), 'utf8')).toContain(
      '"export_id"',
    );
  });

  it("fails at once when its definition, or an export job's, is not in the worker's file", async () => {
    const h = await withFile(yaml('exports:', ...definition('known', '0 1 * * *')));
    const { queue } = h.producer;
    await h.startWorker();
    const events = await h.events();
    await queue.add(
      JOB_NAMES.scheduledExport,
      { export: 'ghost' },
      { jobId: 'ghost-run', prevMillis: Date.now() },
    );
    const run = await waitForJob(queue, events, 'ghost-run');
    expect(run).toMatchObject({ state: 'failed' });
    expect(run.state === 'failed' ? run.reason : '').toContain('no export definition "ghost"');
    expect((await queue.getJob('ghost-run'))?.attemptsMade).toBe(1);

    const { jobId } = await enqueueExport(
      queue,
      exportJobData('2024-03-29', '2024-03-29', ['csv'], undefined, 'ghost'),
    );
    const exported = await waitForJob(queue, events, jobId);
    expect(exported.state === 'failed' ? exported.reason : '').toContain('no export definition "ghost"');
    expect((await queue.getJob(jobId))?.attemptsMade).toBe(1);
  });
});
