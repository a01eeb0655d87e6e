// A process that closes its Redis Cluster clients while they are looking their slots up still
// exits: the look-up coming back must not start the periodic look-up again (ioredis's own timer
// did, and kept `enqueue --wait` running after it had printed its result). The state is reached
// on purpose: every node of a real cluster pauses its clients (CLIENT PAUSE: the cluster bus goes
// on, so nothing fails over), the client's next look-up hangs until it times out and says so, and
// only then are the client and its duplicate (what BullMQ's blocking connections are) closed.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { withRedisAt } from '../support/redis-server.js';
import { SlotsFollowingCluster } from '../../src/queue/slots-following-cluster.js';

const DIST = fileURLToPath(new URL('../../dist/src/', import.meta.url));

/**
 * Long enough for the next periodic look-up (every 2 s) to start and time out on a node (ioredis:
 * 1 s) on a busy machine, and to be still trying the other nodes when the client is closed.
 */
const PAUSE_MS = 8000;

/**
 * The product's connectRedis and closeRedis in a process of their own: connects a producer client
 * and a duplicate, says `ready`, closes both when told to on stdin, says `closed`. Warnings (a
 * node that did not answer a look-up) go to stderr as JSON lines.
 */
const CHILD = `
const [{ connectRedis, closeRedis }, { loadQueueConfig }, { createLogger }] = await Promise.all([
  import(${JSON.stringify(`${DIST}queue/redis-connection.js`)}),
  import(${JSON.stringify(`${DIST}config/queue-config.js`)}),
  import(${JSON.stringify(`${DIST}logger.js`)}),
]);
const logger = createLogger({ level: 'warn', destination: process.stderr });
const { redis } = loadQueueConfig(process.env);
const client = await connectRedis(redis, { role: 'producer', connectTimeoutMs: 10000, logger });
const duplicate = client.duplicate();
duplicate.on('error', () => undefined);
await duplicate.connect();
process.stdout.write('ready\\n');
process.stdin.once('data', async () => {
  await closeRedis(duplicate);
  await closeRedis(client);
  process.stdout.write('closed\\n');
  process.stdin.destroy();
});
`;

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
});

afterAll(async () => {
  await cluster?.close();
});

/** Resolves once `read()` holds `text`; fails after `timeoutMs`. */
async function until(read: () => string, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!read().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms: ${read()}`);
    // Polling a child process's output, not test synchronisation.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('SlotsFollowingCluster', () => {
  it('duplicates as a cluster client that follows its slots too', () => {
    const client = new SlotsFollowingCluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true }, 2000);
    const duplicate = client.duplicate();
    expect(duplicate).toBeInstanceOf(SlotsFollowingCluster);
    expect(duplicate.options.slotsRefreshInterval).toBe(0);
  });

  it('lets the process exit when it is closed while a look-up of its slots is under way', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: {
        PATH: process.env['PATH'] ?? '',
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_CLUSTER_NODES: cluster.seed,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => stdout, 'ready', 30_000);
      await Promise.all(
        cluster.ports.map((port) =>
          withRedisAt(port, (r) => r.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL')),
        ),
      );
      // The next periodic look-up (every 2 s) hangs on a paused node and times out after 1 s.
      await until(() => stderr, '"err":"timeout"', PAUSE_MS);
      child.stdin.write('close\n');
      await until(() => stdout, 'closed', PAUSE_MS + 10_000);
      const code = await Promise.race([
        exited,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
      ]);
      expect(code, stderr).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }, 60_000);
});
