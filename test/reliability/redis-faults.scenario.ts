// Redis faults: a redis-server restarted (its data gone: the test server has no
// persistence) while a worker child runs an export; `enqueue` and `worker` started with Redis down;
// the API, a stopping worker and `enqueue --wait` while Redis is down: each answers or ends in
// bounded time with one clear line.

import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueExport, type EnqueueResult } from '../../src/queue/enqueue-export.js';
import { exportJobData, type ExportJobData } from '../../src/queue/export-job-data.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import type { Queue } from 'bullmq';
import { cliEnv, runCli, startCli } from '../support/cli.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startApiChild } from './support/api-child.js';
import { checkLocalExport } from './support/exported-ids.js';
import { expectedIds } from './support/expected-rows.js';
import { keepText, WFM_SECRET_TOKEN } from './support/evidence.js';
import { fetching, openQueueWorld, workerReady } from './support/queue-world.js';
import { scenario } from './support/scenario.js';
import { REPORT_ROWS, sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'redis';
const FROM = '2024-03-26';
const TO = '2024-03-30';
const SHAPE = sourceShape(REPORT_ROWS);

let redis: RedisServer;
let sandbox: RunningSandbox;
let expected: Set<number>;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(SHAPE)]);
  expected = expectedIds(SHAPE, FROM, TO);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

/** Enqueues once the producer has reconnected to the restarted server (bounded). */
async function enqueueAfterRestart(queue: Queue, data: ExportJobData): Promise<EnqueueResult> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await enqueueExport(queue, data);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      // Reconnection backoff of the producer's client, not test synchronisation.
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe('redis faults', () => {
  it('keeps the worker alive through a Redis restart mid-export and completes the period', () =>
    scenario(GROUP, 'redis restarted while a job runs', async () => {
      const world = await openQueueWorld('redis-restart', redis.url, sandbox);
      try {
        const events = await world.events();
        sandbox.setFaults({ wfm_timers: { latencyMs: 2000 } });
        const data = exportJobData(FROM, TO, ['csv']);
        const { jobId } = await enqueueExport(world.harness.producer.queue, data);
        const underWay = fetching(events, jobId);
        const worker = world.worker();
        await underWay;
        await redis.restart();
        sandbox.clearFaults();
        // The restarted server lost every key (no persistence here): the job is asked for again,
        // as an operator or the nightly schedule would.
        const again = await enqueueAfterRestart(world.harness.producer.queue, data);
        const outcome = await waitForJob(world.harness.producer.queue, await world.events(), again.jobId);
        if (outcome.state !== 'completed') throw new Error(`job failed: ${outcome.reason}`);
        if (worker.child.exitCode !== null) throw new Error(`the worker exited (${worker.child.exitCode})`);
        const check = await checkLocalExport(world.dest, FROM, TO, expected);
        return {
          outcome: 'worker reconnected; the job asked again completed',
          expected: expected.size,
          ...check,
        };
      } finally {
        sandbox.clearFaults();
        await world.finish();
      }
    }));

  it('stops enqueue at once with one line when Redis is down', () =>
    scenario(GROUP, 'Redis down at enqueue', async () => {
      const port = await closedPort();
      const started = Date.now();
      const r = await runCli(
        ['enqueue', '--from', FROM, '--to', TO],
        cliEnv({ REDIS_URL: `redis://127.0.0.1:${port}` }),
        20_000,
      );
      keepText('redis-down-enqueue', r.stderr);
      const ms = Date.now() - started;
      const lines = r.stderr.trim().split('\n');
      if (r.code !== 1 || lines.length !== 1 || !lines[0]?.includes('REDIS_UNAVAILABLE') || ms > 8000)
        throw new Error(`exit ${r.code} after ${ms} ms: ${r.stderr.trim()}`);
      return { outcome: `exit 1 in ${(ms / 1000).toFixed(1)} s: ${lines[0]?.slice(0, 70)}…` };
    }));

  it('stops a worker that cannot reach Redis at start after retrying, with one clear line', () =>
    scenario(GROUP, 'Redis down at worker start', async () => {
      const port = await closedPort();
      const started = Date.now();
      const r = await runCli(
        ['worker'],
        cliEnv({
          REDIS_URL: `redis://127.0.0.1:${port}`,
          REDIS_CONNECT_TIMEOUT_MS: '2000',
          WFM_BASE_URL: sandbox.url,
          WFM_TOKEN: WFM_SECRET_TOKEN,
        }),
        20_000,
      );
      keepText('redis-down-worker', r.stderr);
      const ms = Date.now() - started;
      const last = r.stderr.trim().split('\n').at(-1) ?? '';
      if (
        r.code !== 1 ||
        !/^shift-export worker: REDIS_UNAVAILABLE: .* within 2 s/.test(last) ||
        ms < 2000 ||
        ms > 10_000
      )
        throw new Error(`exit ${r.code} after ${ms} ms: ${r.stderr.trim()}`);
      return { outcome: `retried for 2 s, then exit 1: ${last.slice(0, 60)}…` };
    }));

  it('answers 503 at once while Redis is down and recovers when it is back', () =>
    scenario(GROUP, 'Redis down while the API runs', async () => {
      const world = await openQueueWorld('redis-api', redis.url, sandbox);
      const token = 'api-token-redis-down-5e6f7a8b';
      const api = await startApiChild('redis-down', { ...world.harness.env, API_TOKENS: token });
      const post = async (): Promise<{ status: number; ms: number; text: string }> => {
        const started = Date.now();
        const r = await fetch(`${api.base}/exports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ from: FROM, to: FROM, formats: ['csv'] }),
          signal: AbortSignal.timeout(20_000),
        });
        return { status: r.status, ms: Date.now() - started, text: await r.text() };
      };
      try {
        await redis.stop();
        const down = await post();
        const health = await fetch(`${api.base}/healthz`, { signal: AbortSignal.timeout(20_000) });
        await health.arrayBuffer();
        await redis.restart();
        const deadline = Date.now() + 20_000;
        let back = await post();
        while (back.status !== 202 && Date.now() < deadline) {
          // The API's client reconnects with its own backoff: ask again until it has.
          await new Promise((r) => setTimeout(r, 250));
          back = await post();
        }
        if (down.status !== 503 || down.ms > 10_000 || health.status !== 503 || back.status !== 202)
          throw new Error(
            `down: ${down.status} in ${down.ms} ms (${down.text.slice(0, 100)}), healthz ${health.status}, after restart: ${back.status}`,
          );
        return { outcome: `503 in ${down.ms} ms while down, /healthz 503; 202 again after the restart` };
      } finally {
        await api.stop();
        await world.finish();
      }
    }));

  it('stops a worker on SIGTERM within the grace period while Redis is down', () =>
    scenario(GROUP, 'SIGTERM to a worker while Redis is down', async () => {
      const world = await openQueueWorld('redis-down-sigterm', redis.url, sandbox);
      try {
        const worker = world.worker({ SHUTDOWN_GRACE_MS: '2000' });
        await workerReady(worker);
        await redis.stop();
        const started = Date.now();
        worker.child.kill('SIGTERM');
        const timer = setTimeout(() => worker.child.kill('SIGKILL'), 20_000);
        const exit = await worker.exited;
        clearTimeout(timer);
        const ms = Date.now() - started;
        await redis.restart();
        if (exit.signal === 'SIGKILL' || ms > 12_000)
          throw new Error(`worker still running ${ms} ms after SIGTERM`);
        return {
          outcome: `exited ${exit.code ?? exit.signal} ${(ms / 1000).toFixed(1)} s after SIGTERM (grace 2 s)`,
        };
      } finally {
        await world.finish();
      }
    }));

  it('ends enqueue --wait with a clear error when Redis goes away while it waits', () =>
    scenario(GROUP, 'Redis down during enqueue --wait', async () => {
      const world = await openQueueWorld('redis-down-wait', redis.url, sandbox);
      try {
        sandbox.setFaults({ wfm_timers: { latencyMs: 30_000 } });
        const enqueue = startCli(
          ['enqueue', '--from', FROM, '--to', TO, '--wait'],
          cliEnv(world.harness.env),
        );
        const { child, exited } = enqueue;
        const deadline = Date.now() + 20_000;
        // The job id on stdout says the job is queued and the command is waiting.
        while (!enqueue.stdout().includes('export-') && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        await redis.stop();
        const started = Date.now();
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        const code = await exited;
        clearTimeout(timer);
        const ms = Date.now() - started;
        keepText('redis-down-wait', `${enqueue.stdout()}\n${enqueue.stderr()}`);
        await redis.restart();
        const last = enqueue.stderr().trim().split('\n').at(-1) ?? '';
        if (code === null || code === 0 || ms > 30_000 || !/REDIS/.test(last))
          throw new Error(
            `exit ${code} ${ms} ms after Redis went down: ${enqueue.stderr().trim().slice(0, 300)}`,
          );
        return {
          outcome: `exit ${code} ${(ms / 1000).toFixed(1)} s after Redis went down: ${last.slice(0, 60)}…`,
        };
      } finally {
        sandbox.clearFaults();
        await world.finish();
      }
    }));
});
