// `enqueue`, `status` and `backfill` as child processes (the built CLI) with a worker child, a
// real redis-server and the sandbox: what a user or a cron job sees — the job id on stdout, live
// progress and final counts with --wait, a failure reason and exit 1 when the job fails, one clear
// line and no hang when Redis is down, usage errors before Redis is even asked.

import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_QUEUE_NAME } from '../../src/queue/queue-names.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness } from './support/queue-harness.js';
import { killAll, spawnWorker } from './support/worker-child.js';

const DAY = '2024-03-30';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 600 })]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  await killAll();
  await harness?.stop();
  harness = undefined;
});

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

describe('queue commands', () => {
  it('enqueue --wait prints the job id, then the counts; asking again returns the same job', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url });
    const env = cliEnv(harness.env);
    spawnWorker(harness.env);
    const waited = await runCli(['enqueue', '--from', DAY, '--to', DAY, '--wait'], env);
    expect(waited.code, waited.stderr).toBe(0);
    const [jobId, ...rest] = waited.stdout.trim().split('\n');
    expect(jobId).toMatch(/^export-2024-03-30_2024-03-30-csv-[0-9a-f]{10}$/);
    expect(rest.join('\n')).toMatch(/^Export \S+ of 2024-03-30\.\.2024-03-30 published to /);
    expect(rest.join('\n')).toMatch(/shifts exported\s+[1-9]/);

    const again = await runCli(['enqueue', '--from', DAY, '--to', DAY], env);
    expect(again).toMatchObject({ code: 0, stdout: `${jobId}\n` });
    expect(again.stderr).toContain('already completed');

    const list = await runCli(['status'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`^${jobId?.replace(/[+.]/g, '\\$&')}\\s+completed\\s+2024-03-30\\s+\\d+ exported`, 'm'),
    );
    const one = await runCli(['status', jobId ?? '', '--json'], env);
    expect(JSON.parse(one.stdout)).toMatchObject({
      id: jobId,
      state: 'completed',
      result: { period: { from: DAY, to: DAY } },
    });
  });

  it('enqueue --wait exits 1 with the failure reason when the export fails', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url, wfmToken: 'wrong-token' });
    spawnWorker(harness.env);
    const r = await runCli(['enqueue', '--from', DAY, '--to', DAY, '--wait'], cliEnv(harness.env));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^job export-\S+ failed: WFM_AUTH: .+$/m);
    expect(r.stderr).not.toContain('wrong-token');
  });

  it('status prints hostile job data from Redis as inert text, never as terminal controls', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url });
    // Anyone who can write to Redis can write this; no worker runs, so it stays as written.
    const hostile = '/tmp/x\u001b]0;owned\u0007\u001b[2J\rDest      /safe';
    const job = await harness.producer.queue.add(
      'export-period',
      { from: DAY, to: DAY, formats: ['csv'], dest: hostile },
      { jobId: 'hostile\u001b[31m-job' },
    );
    // Fail it the way a worker would, with a reason that carries controls too.
    const taker = new Worker(EXPORT_QUEUE_NAME, null, {
      connection: { url: redis.url },
      prefix: harness.prefix,
      autorun: false,
    });
    const taken = await taker.getNextJob('test-token');
    await taken?.moveToFailed(new UnrecoverableError('boom\u001b[8m\r\nhidden'), 'test-token', false);
    await taker.close();
    const env = cliEnv(harness.env);
    for (const args of [['status'], ['status', job.id ?? '']]) {
      const r = await runCli(args, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('hostile\\u{1b}[31m-job');
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      expect(r.stdout).not.toMatch(/[\u001b\u0007\r]/);
    }
    const details = await runCli(['status', job.id ?? ''], env);
    expect(details.stdout).toContain('Failure   boom\\u{1b}[8m hidden');
    expect(details.stdout).toContain('Dest      /tmp/x\\u{1b}]0;owned\\u{7}\\u{1b}[2J Dest      /safe');
  });

  it('backfill --wait queues a day per job and prints where the index is', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url });
    spawnWorker({ ...harness.env, WORKER_CONCURRENCY: '2' });
    const r = await runCli(
      ['backfill', '--from', '2024-03-28', '--to', '2024-03-29', '--wait'],
      cliEnv(harness.env),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backfill-2024-03-28_2024-03-29-csv-/);
    const index = join(harness.dest, 'backfill-2024-03-28_2024-03-29.json');
    expect(r.stdout).toContain(`Backfill of 2 days complete; index at ${index}`);
    expect(existsSync(index)).toBe(true);
  });

  it('stops at once with one clear line when Redis is down', async () => {
    const port = await closedPort();
    const started = Date.now();
    const r = await runCli(
      ['enqueue', '--from', DAY, '--to', DAY],
      cliEnv({ REDIS_URL: `redis://:secret-password@127.0.0.1:${port}` }),
    );
    expect(Date.now() - started).toBeLessThan(8000);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `shift-export enqueue: REDIS_UNAVAILABLE: cannot reach Redis at redis://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}); is it running? (REDIS_URL)\n`,
    );
  });

  it('stops a worker that cannot reach Redis at start with one clear line', async () => {
    const port = await closedPort();
    const r = await runCli(
      ['worker'],
      cliEnv({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_CONNECT_TIMEOUT_MS: '1500',
        WFM_BASE_URL: sandbox.url,
        WFM_TOKEN: 'sandbox-reader',
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^shift-export worker: REDIS_UNAVAILABLE: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} within 1\\.5 s \\(connect ECONNREFUSED`,
        'm',
      ),
    );
  });

  it.each([
    [['enqueue', '--from', DAY], /--to is required/],
    [['enqueue', '--from', DAY, '--to', '2024-03-01'], /is after --to/],
    [['enqueue', '--from', DAY, '--to', DAY, '--format', 'pdf'], /unknown format "pdf"/],
    [['enqueue', '--from', DAY, '--to', DAY, '--dest', 's3://b/../x'], /DEST_INVALID/],
    [
      ['enqueue', '--from', DAY, '--to', DAY, '--dest', '/etc/cron.d'],
      /^shift-export enqueue: DEST_NOT_ALLOWED: /,
    ],
    [['backfill', '--from', DAY, '--to', DAY, '--dest', 's3://elsewhere/x'], /DEST_NOT_ALLOWED/],
    [['enqueue', '--from', DAY, '--to', DAY, '--bogus'], /Unknown option '--bogus'/],
    [
      ['backfill', '--from', '2020-01-01', '--to', '2024-01-01'],
      /more than the 366 one backfill may cover; split it into several backfills/,
    ],
    [['status', '--limit', '0'], /--limit "0"/],
  ])('refuses %j with exit 2 before touching Redis', async (args, message) => {
    const r = await runCli(args, cliEnv({ REDIS_URL: 'redis://127.0.0.1:1' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each(['worker', 'enqueue', 'status', 'backfill', 'api'])(
    '%s --help shows usage and examples',
    async (command) => {
      const r = await runCli([command, '--help'], cliEnv({}));
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: shift-export ${command}`);
      expect(r.stdout).toContain('Examples:');
    },
  );
});
