// A worker told to stop while its Redis is unreachable still stops: BullMQ's close() calls wait for
// Redis forever, so each closing step is bounded and named in the log when it is cut short
// (regression: the worker used to hang past any orchestrator's kill timeout). With no export
// running nothing is lost, so the stop is clean (exit 0), and it does not wait for the grace period:
// SHUTDOWN_GRACE_MS is ten minutes here, longer than the test may take. The connection errors go to
// the JSON log, not the console (the worker's queue had no listener).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { STOP_STEPS } from '../../jobs/worker-stop.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 100 })]);
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: { SHUTDOWN_GRACE_MS: String(600_000) },
  });
});

afterAll(async () => {
  await harness?.stop();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

describe('worker stop with Redis down', () => {
  it('stops an idle worker through every bounded step, naming the steps cut short, and calls it clean', async () => {
    const worker = await harness.startWorker();
    await redis.stop();
    const clean = await worker.stop('test: Redis is down');
    await redis.restart();
    expect(clean).toBe(true);
    const stepLines = harness.logs.filter(
      (l) => typeof l['step'] === 'string' && /^stop step /.test(l.msg ?? ''),
    );
    expect(stepLines.map((l) => l['step'])).toEqual([...STOP_STEPS]);
    const stopped = harness.logs.find((l) => l.msg === 'worker stopped');
    expect(stopped?.['clean']).toBe(true);
    // Which closing steps hang depends on where the worker stood when Redis went (in a blocking
    // command, or between two); each one that did says so at warn level, and no other.
    const cutShort = stepLines.filter((l) => /cut short/.test(l.msg ?? '')).map((l) => l['step']);
    expect(stopped?.['cutShort']).toEqual(cutShort);
    expect(cutShort).not.toContain('exports-finish');
    for (const line of stepLines) expect(line.level).toBe(/cut short/.test(line.msg ?? '') ? 40 : 30);
  });
});
