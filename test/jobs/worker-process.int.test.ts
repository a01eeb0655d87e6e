// `shift-export worker` as child processes (the built CLI, as production runs it) against a real
// redis-server and the sandbox: a worker SIGKILLed mid-export leaves a stalled job that a second
// worker completes, with a complete export and nothing partial published; SIGTERM lets a running
// export finish within the grace period, or aborts it and hands the job back, and exits 0. Started
// as installed (its first line's node flags), a worker with no job left collects its garbage.
// The upstream answers slowly (sandbox latencyMs) so that signals land mid-export; the moment is
// found from the job's progress events, never from sleeps.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueEvents } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { loadJobView } from '../../src/queue/job-view.js';
import { readExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { QUICK_TAKEOVER_ENV, startHarness, type Harness } from '../queue/support/queue-harness.js';
import { killAll, spawnWorker, type WorkerChild } from '../queue/support/worker-child.js';

const DAY = '2024-03-30';
const SLOW_MS = 2500;

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  await killAll();
  sandbox.clearFaults();
  await harness?.stop();
  harness = undefined;
});

function worker(h: Harness, env: Record<string, string> = {}): WorkerChild {
  return spawnWorker({ ...h.env, ...env });
}

/** Resolves when the job reports the fetching phase: the export is under way. */
function fetching(events: QueueEvents, jobId: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = ({ jobId: id, data }: { jobId: string; data: unknown }) => {
      if (
        id === jobId &&
        typeof data === 'object' &&
        data !== null &&
        (data as { phase?: unknown }).phase === 'fetching'
      ) {
        events.off('progress', listener);
        resolve();
      }
    };
    events.on('progress', listener);
  });
}

/** The published export of DAY is complete: every file's bytes match the manifest. */
function expectCompleteExport(dest: string, exportId: string): void {
  const folder = realpathSync(join(dest, `${DAY}_${DAY}`));
  const manifest = parseManifest(readFileSync(join(folder, 'manifest.json'), 'utf8'));
  expect(manifest.export_id).toBe(exportId);
  for (const file of manifest.files) {
    const bytes = readFileSync(join(folder, file.path));
    expect(bytes.length, file.name).toBe(file.bytes);
    expect(createHash('sha256').update(bytes).digest('hex'), file.name).toBe(file.sha256);
  }
  const shifts = manifest.files.find((f) => f.name === 'shifts.csv');
  expect(shifts?.rows).toBe(manifest.counts.exported);
  expect(manifest.counts.exported).toBeGreaterThan(0);
}

async function open(env: Record<string, string> = {}): Promise<Harness> {
  harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url, env });
  return harness;
}

describe('worker process', () => {
  it('leaves the job of a SIGKILLed worker to another worker, which publishes it complete', async () => {
    const h = await open(QUICK_TAKEOVER_ENV);
    const events = await h.events();
    sandbox.setFaults({ wfm_timers: { latencyMs: SLOW_MS } });
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const underWay = fetching(events, jobId);
    const first = worker(h);
    await underWay;
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(await (await h.producer.queue.getJob(jobId))?.getState()).toBe('active');
    expect(existsSync(join(h.dest, `${DAY}_${DAY}`))).toBe(false);

    worker(h);
    const outcome = await waitForJob(h.producer.queue, events, jobId);
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    const result = readExportJobResult(outcome.returnValue);
    expectCompleteExport(h.dest, result?.export_id ?? '?');
    const job = await h.producer.queue.getJob(jobId);
    expect(job?.attemptsStarted).toBe(2);
  });

  it('lets a running export finish on SIGTERM, then exits 0', async () => {
    const h = await open();
    const events = await h.events();
    sandbox.setFaults({ wfm_timers: { latencyMs: SLOW_MS } });
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const underWay = fetching(events, jobId);
    const running = worker(h, { SHUTDOWN_GRACE_MS: '30000' });
    await underWay;
    running.child.kill('SIGTERM');
    const exit = await running.exited;
    expect(exit, running.stderr()).toEqual({ code: 0, signal: null });
    const job = await h.producer.queue.getJob(jobId);
    expect(await job?.getState()).toBe('completed');
    expectCompleteExport(h.dest, readExportJobResult(job?.returnvalue)?.export_id ?? '?');
    expect(running.stderr()).toContain('worker stopped');
  });

  it('collects its main thread garbage once no job is left, when started as installed', async () => {
    const h = await open();
    const events = await h.events();
    const running = spawnWorker({ ...h.env, LOG_LEVEL: 'debug' }, { asInstalled: true });
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(h.producer.queue, events, jobId);
    expect(outcome.state, running.stderr()).toBe('completed');
    // Logged before the job's completion is written, so it is in the log by now.
    const collected = running
      .stderr()
      .split('\n')
      .filter((line) => line.includes('idle: main thread garbage collected'))
      .map((line) => JSON.parse(line) as { collectedMs: unknown });
    expect(collected.length, running.stderr()).toBeGreaterThan(0);
    for (const line of collected) expect(line.collectedMs).toBeGreaterThanOrEqual(0);
  });

  it('aborts an export that outlasts the grace period, hands the job back unfailed, and exits 0', async () => {
    const h = await open();
    const events = await h.events();
    sandbox.setFaults({ wfm_timers: { latencyMs: 10_000 } });
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const underWay = fetching(events, jobId);
    const running = worker(h, { SHUTDOWN_GRACE_MS: '300' });
    await underWay;
    running.child.kill('SIGTERM');
    const exit = await running.exited;
    expect(exit, running.stderr()).toEqual({ code: 0, signal: null });
    expect(running.stderr()).toContain('job handed back to the queue');
    const job = await h.producer.queue.getJob(jobId);
    expect(await job?.getState()).toBe('waiting');
    expect(job?.attemptsMade).toBe(0);
    // status shows neither the ended run's start nor its progress, which carries its attempt.
    expect(job?.progress).toMatchObject({ phase: 'fetching', attempt: 1 });
    const view = await loadJobView(h.producer.queue, jobId);
    expect(view).toMatchObject({ state: 'waiting', started_at: null, progress: null, attempts_started: 1 });
    expect(job?.failedReason ?? '').toBe('');
    expect(existsSync(join(h.dest, `${DAY}_${DAY}`))).toBe(false);

    // Another worker takes it from the queue and completes it.
    sandbox.clearFaults();
    worker(h);
    const outcome = await waitForJob(h.producer.queue, events, jobId);
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    expectCompleteExport(h.dest, readExportJobResult(outcome.returnValue)?.export_id ?? '?');
  });
});
