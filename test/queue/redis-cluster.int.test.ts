// The queue on a real 6-node Redis Cluster (3 primaries, 3 replicas), with only REDIS_CLUSTER_NODES
// set to one seed and REDIS_URL pointing at a closed port: a worker, `enqueue --wait`, `status`,
// `backfill --wait` and the API all work; every key they created (jobs, the nightly scheduler, the
// backfill's flow, the metrics hash) sits in the queue's one slot on one primary; and after that
// primary is killed and its replica promoted, the next export completes on the same worker.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
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

let cluster: RedisCluster;
let sandbox: RunningSandbox;
let dest: string;
let env: Record<string, string>;
let worker: WorkerChild;

beforeAll(async () => {
  [cluster, sandbox] = await Promise.all([startRedisCluster(), startTestSandbox({ rows: 500 })]);
  dest = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const prefix = testPrefix();
  // The one seed must outlive the failover below, or the commands started after it could not
  // find the cluster (in production list several seeds).
  const queuePrimary = await cluster.primaryOf(await cluster.keySlot(prefix));
  const seed = cluster.ports.find((port) => port !== queuePrimary);
  env = queueRoundEnv({ REDIS_CLUSTER_NODES: `127.0.0.1:${seed}`, QUEUE_PREFIX: prefix }, sandbox.url, dest);
  worker = await startWorkerChild(env);
});

afterAll(async () => {
  await stopWorkerChildren();
  await Promise.all([cluster?.close(), sandbox?.close()]);
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

describe('the queue on Redis Cluster', () => {
  it('runs worker, enqueue --wait, status, backfill and the API from one seed node', async () => {
    expectFullRound(await runQueueRound(env, ROUND_DAYS));
  });

  it('keeps every key of the queue in its hash slot, on one primary', async () => {
    const slot = await cluster.keySlot(env['QUEUE_PREFIX']!);
    const byPrimary = await cluster.keysByPrimary();
    const holders = [...byPrimary].filter(([, keys]) => keys.length > 0);
    expect(holders.map(([port]) => port)).toEqual([await cluster.primaryOf(slot)]);
    const keys = holders[0]![1];
    for (const key of keys) {
      expect(key.startsWith(`${env['QUEUE_PREFIX']}:shift-exports:`), key).toBe(true);
      expect(await cluster.keySlot(key), key).toBe(slot);
    }
    const kinds = (suffix: RegExp) => keys.filter((k) => suffix.test(k));
    expect(kinds(/:metrics$/), 'the metrics hash').toHaveLength(1);
    expect(kinds(/:repeat(:|$)/).length, 'the nightly scheduler').toBeGreaterThan(0);
    expect(
      kinds(/:backfill-[^:]+:dependencies$|:backfill-[^:]+:processed$/).length,
      'the flow',
    ).toBeGreaterThan(0);
    expect(kinds(/:export-2024-03-30[^:]*$/), 'the job').toHaveLength(1);
  });

  it('completes the next export after the queue slot primary is killed and its replica promoted', async () => {
    const slot = await cluster.keySlot(env['QUEUE_PREFIX']!);
    const primary = await cluster.primaryOf(slot);
    await cluster.kill(primary);
    const promoted = await cluster.waitForNewPrimary(slot, primary);
    expect(promoted).not.toBe(primary);
    const after = await cliOk(['enqueue', '--from', '2024-03-26', '--to', '2024-03-26', '--wait'], env);
    expect(after.stdout).toMatch(/shifts exported +\d+/);
    expect(worker.child.exitCode, worker.stderr()).toBeNull();
    expect(worker.child.signalCode).toBeNull();
  }, 120_000);

  it('stops the worker on SIGTERM after the failover: exit 0', async () => {
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).toEqual({ code: 0, signal: null });
    expect(worker.stderr()).toContain('"msg":"worker stopped"');
  });
});
