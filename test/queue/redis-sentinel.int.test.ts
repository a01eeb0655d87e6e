// The queue behind real Sentinels (a primary, a replica, three Sentinels), with only REDIS_SENTINELS
// and REDIS_SENTINEL_NAME set and REDIS_URL pointing at a closed port: a worker, `enqueue --wait`,
// `status`, `backfill --wait` and the API all work; after the primary is killed and the Sentinels
// promote the replica, the next export completes on the same worker.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '../support/redis-sentinel.js';
import { testPrefix } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import {
  cliOk,
  expectFullRound,
  queueRoundEnv,
  ROUND_DAYS,
  runQueueRound,
  startWorkerChild,
  stopWorkerChildren,
} from './support/queue-round.js';
import type { WorkerChild } from './support/worker-child.js';

let group: RedisSentinelGroup;
let sandbox: RunningSandbox;
let dest: string;
let env: Record<string, string>;
let worker: WorkerChild;

beforeAll(async () => {
  [group, sandbox] = await Promise.all([startRedisSentinelGroup(), startTestSandbox({ rows: 500 })]);
  dest = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  env = queueRoundEnv(
    { REDIS_SENTINELS: group.sentinels, REDIS_SENTINEL_NAME: group.name, QUEUE_PREFIX: testPrefix() },
    sandbox.url,
    dest,
  );
  worker = await startWorkerChild(env);
});

afterAll(async () => {
  await stopWorkerChildren();
  await Promise.all([group?.close(), sandbox?.close()]);
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

describe('the queue behind Redis Sentinel', () => {
  it('runs worker, enqueue --wait, status, backfill and the API through the Sentinels', async () => {
    expectFullRound(await runQueueRound(env, ROUND_DAYS));
  });

  it('completes the next export after the primary is killed and the replica promoted', async () => {
    const primary = await group.primary();
    await group.kill(primary);
    const promoted = await group.waitForNewPrimary(primary);
    expect(promoted).not.toBe(primary);
    const after = await cliOk(['enqueue', '--from', '2024-03-26', '--to', '2024-03-26', '--wait'], env);
    expect(after.stdout).toMatch(/shifts exported +\d+/);
    expect(worker.child.exitCode, worker.stderr()).toBeNull();
    expect(worker.child.signalCode).toBeNull();
  });

  it('stops the worker on SIGTERM after the failover: exit 0', async () => {
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).toEqual({ code: 0, signal: null });
    expect(worker.stderr()).toContain('"msg":"worker stopped"');
  });
});
