// A queue scenario's world: a harness (producer, env for worker children, capturing logger) over a
// real redis-server and the scenario sandbox, its exports in an evidence folder, and the worker
// children started in it (the leak guard counts them as the world's, whichever test started them;
// finish() stops them). finish() keeps
// every log line and a dump of every Redis key under the harness's prefix for the secret sweep,
// then removes them.

import { readdirSync } from 'node:fs';
import type { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { RunningSandbox } from 'wfm-sandbox';
import { startHarness, type Harness } from '../../queue/support/queue-harness.js';
import { killAll, spawnWorker, type WorkerChild } from '../../queue/support/worker-child.js';
import { currentLeakScope, inLeakScope } from '../../support/leak-guard.js';
import { evidenceFolder, keepText, WFM_SECRET_TOKEN } from './evidence.js';

export interface QueueWorld {
  readonly harness: Harness;
  readonly dest: string;
  /** Starts `shift-export worker` as a child with the harness's env (+ `env`); its stderr is kept. */
  worker(env?: Record<string, string>): WorkerChild;
  events(): Promise<QueueEvents>;
  finish(): Promise<void>;
}

export async function openQueueWorld(
  name: string,
  redisUrl: string,
  sandbox: RunningSandbox,
  env: Record<string, string> = {},
): Promise<QueueWorld> {
  const dest = env['EXPORT_DEST'] ?? evidenceFolder(name);
  const harness = await startHarness({
    redisUrl,
    sandboxUrl: sandbox.url,
    wfmToken: WFM_SECRET_TOKEN,
    env: { EXPORT_DEST: dest, WFM_RETRY_ATTEMPTS: '3', WFM_RETRY_BASE_DELAY_MS: '50', ...env },
  });
  const workers: WorkerChild[] = [];
  // The world's workers are the world's: stopped by finish(), so they live as long as it does
  // (a file's world, opened in beforeAll, keeps a worker a test started for the tests after it).
  const scope = currentLeakScope();
  return {
    harness,
    dest,
    worker(extra = {}) {
      const w = inLeakScope(scope, () => spawnWorker({ ...harness.env, ...extra }));
      workers.push(w);
      return w;
    },
    events: () => harness.events(),
    async finish() {
      await killAll();
      workers.forEach((w, i) => keepText(`${name}-worker-${i}`, w.stderr()));
      keepText(`${name}-harness-log`, harness.logs.map((l) => JSON.stringify(l)).join('\n'));
      try {
        keepText(`${name}-redis-dump`, await dumpKeys(redisUrl, harness.prefix));
      } catch (error) {
        keepText(`${name}-redis-dump`, `(redis unavailable for the dump: ${String(error)})`);
      }
      await harness.stop();
    },
  };
}

/** Every key under `prefix` with its value, as text: what a leak into job records would show. */
export async function dumpKeys(url: string, prefix: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  const out: string[] = [];
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(
        cursor,
        'MATCH',
        `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`,
        'COUNT',
        500,
      );
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        let value: unknown;
        if (type === 'string') value = await redis.get(key);
        else if (type === 'hash') value = await redis.hgetall(key);
        else if (type === 'list') value = await redis.lrange(key, 0, -1);
        else if (type === 'set') value = await redis.smembers(key);
        else if (type === 'zset') value = await redis.zrange(key, 0, -1, 'WITHSCORES');
        else if (type === 'stream') value = await redis.xrange(key, '-', '+');
        out.push(`${key} (${type}) ${JSON.stringify(value)}`);
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return out.join('\n');
}

/** Version folders a local destination holds for from..to: one per export that was published. */
export function versionFolders(dest: string, from: string, to: string): string[] {
  return readdirSync(dest).filter((n) => n.startsWith(`.${from}_${to}.`) && !n.endsWith('.partial'));
}

/** Resolves when the job reports the fetching phase: the export is under way. */
export function fetching(events: QueueEvents, jobId: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = ({ jobId: id, data }: { jobId: string; data: unknown }): void => {
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

/** Resolves once a worker child has logged that it started (readiness of a spawned process). */
export async function workerReady(worker: WorkerChild, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!worker.stderr().includes('"msg":"worker started"')) {
    if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.stderr().trim()}`);
    if (Date.now() > deadline) throw new Error('worker did not start within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}
