// A worker told to stop in the middle of a Redis failover stops at once, cleanly (exit 0), on a
// Redis Cluster and behind Sentinels. The state is reached deterministically: the primary that
// holds the queue is killed while the idle worker waits in its blocking command for a job, and
// SIGTERM is sent as soon as the worker has logged that it lost that node, before the failover
// ends (node timeout 1.5 s, the Sentinels' down-after 1 s). BullMQ's Worker.close() then waits for
// an ioredis client that never ends: behind Sentinels, a blocking client disconnected between two
// reconnect attempts never emits `end` and its command never settles (bullmq#4656, ioredis#2169);
// on a cluster, a slots refresh still under way revives the pool of the client told to disconnect,
// and the command parked for a retry after the failover waits in the queue of a client that never
// reconnects. The stop used to wait the whole grace period there and exit 1; now that close() is a
// bounded step (jobs/worker-stop.ts), cut short and logged. SHUTDOWN_GRACE_MS is ten minutes here,
// far longer than the test may take, so a stop that waited for it fails the test.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { STOP_STEPS } from '../../jobs/worker-stop.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '../support/redis-sentinel.js';
import { testPrefix } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { queueRoundEnv, startWorkerChild, stopWorkerChildren, workerLogged } from './support/queue-round.js';
import type { WorkerChild } from './support/worker-child.js';

const TEN_MINUTES = String(600_000);

let sandbox: RunningSandbox;
let dest: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 50 });
  dest = mkdtempSync(join(tmpdir(), 'stop-during-failover-'));
});

afterEach(async () => {
  await stopWorkerChildren();
});

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

/** SIGTERM, then what a clean stop shows: exit 0, every step logged in order, `clean: true`. */
async function expectCleanStop(worker: WorkerChild): Promise<void> {
  worker.child.kill('SIGTERM');
  expect(await worker.exited, worker.stderr()).toEqual({ code: 0, signal: null });
  const lines = worker
    .stderr()
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text) as Record<string, unknown>);
  const steps = lines.filter((l) => /^stop step /.test(String(l['msg'])));
  expect(steps.map((l) => l['step'])).toEqual([...STOP_STEPS]);
  expect(lines.find((l) => l['msg'] === 'worker stopped')).toMatchObject({ clean: true });
}

describe('a worker stopped in the middle of a failover', () => {
  let cluster: RedisCluster | undefined;
  let group: RedisSentinelGroup | undefined;

  afterEach(async () => {
    await Promise.all([cluster?.close(), group?.close()]);
    cluster = undefined;
    group = undefined;
  });

  it('on Redis Cluster: exits 0 at once, its steps logged', async () => {
    cluster = await startRedisCluster();
    const prefix = testPrefix();
    const primary = await cluster.primaryOf(await cluster.keySlot(prefix));
    const seed = cluster.ports.find((port) => port !== primary);
    const env = queueRoundEnv(
      { REDIS_CLUSTER_NODES: `127.0.0.1:${seed}`, QUEUE_PREFIX: prefix, SHUTDOWN_GRACE_MS: TEN_MINUTES },
      sandbox.url,
      dest,
    );
    const worker = await startWorkerChild(env);
    await cluster.kill(primary);
    await workerLogged(
      worker,
      (l) => l['msg'] === 'Redis Cluster node error' && l['node'] === `127.0.0.1:${primary}`,
    );
    await expectCleanStop(worker);
  });

  it('behind Sentinels: exits 0 at once, its steps logged', async () => {
    group = await startRedisSentinelGroup();
    const env = queueRoundEnv(
      {
        REDIS_SENTINELS: group.sentinels,
        REDIS_SENTINEL_NAME: group.name,
        QUEUE_PREFIX: testPrefix(),
        SHUTDOWN_GRACE_MS: TEN_MINUTES,
      },
      sandbox.url,
      dest,
    );
    const worker = await startWorkerChild(env);
    await group.kill(await group.primary());
    await workerLogged(worker, (l) => l['msg'] === 'Redis connection error');
    await expectCleanStop(worker);
  });
});
