// Exports on threads of their own, in a worker in this process against a real redis-server and the
// sandbox over HTTP (the threads run the build: `npm test` builds first). The threads are reached
// through the diagnostics channel the worker publishes each one on: to count them, and to
// terminate one mid-export as a crash would end it.

import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Worker as Thread } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exportThreadStarted } from '../../jobs/export-thread.js';
import { parseManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportMetrics } from '../../src/queue/export-metrics.js';
import { waitForJob, type JobOutcome } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness, type HarnessOptions } from '../queue/support/queue-harness.js';

const DAY = '2024-03-30';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;
let listener: ((message: unknown) => void) | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  if (listener !== undefined) unsubscribe(exportThreadStarted.name, listener);
  listener = undefined;
  sandbox.clearFaults();
  await harness?.stop();
  harness = undefined;
});

async function open(options: Partial<HarnessOptions> = {}): Promise<Harness> {
  harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url, ...options });
  return harness;
}

async function finish(h: Harness, jobId: string): Promise<JobOutcome> {
  return waitForJob(h.producer.queue, await h.events(), jobId);
}

/** Calls `onThread` with every export thread started from now on (until the test ends). */
function watchThreads(onThread: (thread: Thread) => void): void {
  listener = (message) => onThread((message as { thread: Thread }).thread);
  subscribe(exportThreadStarted.name, listener);
}

/** Terminates the first export thread at its first message (a log line or progress: mid-export). */
function crashFirstThread(): { crashed: () => boolean } {
  let threads = 0;
  let crashed = false;
  watchThreads((thread) => {
    if (threads++ > 0) return;
    thread.once('message', () => {
      crashed = true;
      void thread.terminate();
    });
  });
  return { crashed: () => crashed };
}

describe('export threads', () => {
  it('fails the attempt when its thread dies mid-export, publishing nothing and counting the failure', async () => {
    const h = await open({ env: { JOB_ATTEMPTS: '1' } });
    const crash = crashFirstThread();
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv', 'xlsx']));
    const outcome = await finish(h, jobId);

    expect(crash.crashed()).toBe(true);
    expect(outcome).toEqual({
      state: 'failed',
      reason: expect.stringMatching(/^EXPORT_THREAD_FAILED: the export thread ended before its export did/),
    });
    expect(existsSync(join(h.dest, `${DAY}_${DAY}`))).toBe(false);
    const { counters } = await readExportMetrics(h.producer.connection, h.prefix);
    expect(counters).toMatchObject({ exports_failed: 1, exports_completed: 0 });
    expect(h.logs.find((l) => l.msg === 'export thread failed')).toMatchObject({ level: 50, jobId });
  });

  it('retries a job whose thread died, and the retry publishes the one export', async () => {
    const h = await open({ env: { JOB_ATTEMPTS: '2' } });
    const crash = crashFirstThread();
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await finish(h, jobId);

    expect(crash.crashed()).toBe(true);
    expect(outcome.state).toBe('completed');
    expect((await h.producer.queue.getJob(jobId))?.attemptsMade).toBe(2);
    const failures = h.logs.filter((l) => l.msg === 'job attempt failed');
    expect(failures.map((l) => String(l['reason']))).toEqual([
      expect.stringMatching(/^EXPORT_THREAD_FAILED: /),
    ]);
    const folder = realpathSync(join(h.dest, `${DAY}_${DAY}`));
    const manifest = parseManifest(readFileSync(join(folder, 'manifest.json'), 'utf8'));
    expect(manifest.previous).toBeUndefined();
    expect(readdirSync(h.dest).filter((name) => !name.startsWith('.'))).toEqual([`${DAY}_${DAY}`]);
  });

  it('runs the exports of a WORKER_CONCURRENCY=2 worker on two threads at once, its locks never stalling', async () => {
    const h = await open({ env: { WORKER_CONCURRENCY: '2' } });
    // Each report answers late, so the second export starts while the first is still running.
    sandbox.setFaults({ wfm_timers: { latencyMs: 500 } });
    let alive = 0;
    let mostAlive = 0;
    const threadIds = new Set<number>();
    watchThreads((thread) => {
      threadIds.add(thread.threadId);
      mostAlive = Math.max(mostAlive, ++alive);
      thread.once('exit', () => alive--);
    });
    const days = ['2024-03-29', '2024-03-30'];
    const jobIds: string[] = [];
    for (const day of days)
      jobIds.push((await enqueueExport(h.producer.queue, exportJobData(day, day, ['csv', 'xlsx']))).jobId);
    await h.startWorker();
    const outcomes = await Promise.all(jobIds.map((id) => finish(h, id)));

    expect(outcomes.map((o) => o.state)).toEqual(['completed', 'completed']);
    const retried = h.logs.filter((l) => /stalled|attempt failed/.test(String(l.msg)));
    expect(retried).toEqual([]);
    expect(threadIds.size).toBe(2);
    expect(mostAlive).toBe(2);
    // The threads' log lines reach the worker's log under their job.
    for (const jobId of jobIds)
      expect(h.logs.find((l) => l.msg === 'export published' && l['jobId'] === jobId)).toBeDefined();
  });
});
