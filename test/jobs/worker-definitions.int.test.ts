// `shift-export worker` as child processes (the built CLI) with EXPORTS_FILE, against a real
// redis-server: the schedulers after start; SIGHUP with a changed file (one removed, one added);
// SIGHUP with a broken file (schedulers unchanged, one error line, the worker still running); a
// worker refusing to start on a bad file (exit 2, one line per problem, Redis untouched).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_QUEUE_NAME } from '../../src/queue/queue-names.js';
import { cliEnv, runCli } from '../support/cli.js';
import { removeKeys, startRedisServer, testPrefix, type RedisServer } from '../support/redis-server.js';
import { killAll, spawnWorker, type WorkerChild } from '../queue/support/worker-child.js';
import { tempFolderForTest } from '../support/temp-folder.js';
import { workerStarted } from '../queue/support/queue-round.js';

let redis: RedisServer;
let root: string;
let prefix: string;
let queue: Queue | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

afterEach(async () => {
  await killAll();
  await queue?.close();
  queue = undefined;
  await removeKeys(redis.url, prefix);
});

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const scheduled = (name: string, cron: string): string[] => [
  `  - name: ${name}`,
  `    schedule: { cron: "${cron}", tz: Europe/Berlin }`,
  '    period: yesterday',
];

function setUp(text: string): { file: string; env: Record<string, string> } {
  root = tempFolderForTest('worker-defs-');
  prefix = testPrefix();
  const file = join(root, 'exports.yaml');
  writeFileSync(file, text);
  queue = new Queue(EXPORT_QUEUE_NAME, { connection: { url: redis.url }, prefix });
  return {
    file,
    env: {
      REDIS_URL: redis.url,
      QUEUE_PREFIX: prefix,
      EXPORTS_FILE: file,
      EXPORT_DEST: join(root, 'exports'),
      WFM_BASE_URL: 'http://127.0.0.1:1',
      WFM_TOKEN: 'wfm-token-ok',
    },
  };
}

async function schedulerIds(): Promise<string[]> {
  return ((await queue?.getJobSchedulers(0, -1)) ?? []).map((s) => s.key).sort();
}

/** Resolves once the worker has written `count` lines with message `msg` (its answer to a SIGHUP). */
async function logged(worker: WorkerChild, msg: RegExp, count: number): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const lines = worker
      .stderr()
      .split('\n')
      .filter((l) => msg.test(l));
    if (lines.length >= count) return lines;
    if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.stderr().trim()}`);
    if (Date.now() > deadline) throw new Error(`no ${String(msg)} line: ${worker.stderr().trim()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('shift-export worker with EXPORTS_FILE', () => {
  it('keeps the schedulers of its file, follows it on SIGHUP, and keeps them when it breaks', async () => {
    const { file, env } = setUp(
      yaml('exports:', ...scheduled('a', '0 1 * * *'), ...scheduled('b', '0 2 * * *')),
    );
    await queue?.upsertJobScheduler('nightly-export', { pattern: '0 3 * * *', tz: 'UTC' });
    const worker = spawnWorker(env);
    await workerStarted(worker);
    expect(await schedulerIds()).toEqual(['export:a', 'export:b']);

    writeFileSync(file, yaml('exports:', ...scheduled('b', '0 2 * * *'), ...scheduled('c', '0 3 * * *')));
    worker.child.kill('SIGHUP');
    await logged(worker, /"msg":"export definitions reloaded"/, 1);
    expect(await schedulerIds()).toEqual(['export:b', 'export:c']);

    writeFileSync(
      file,
      yaml(
        'exports:',
        '  - name: b',
        '    shedule: { cron: "0 2 * * *", tz: Europe/Berlin }',
        '    period: yesterday',
      ),
    );
    worker.child.kill('SIGHUP');
    const [line] = await logged(worker, /export definitions not reloaded/, 1);
    expect(await schedulerIds()).toEqual(['export:b', 'export:c']);
    const errors = worker
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"level":50'));
    expect(errors).toEqual([line]);
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      msg: `export definitions not reloaded, the schedules in force are kept: ${file}:3:5: exports[0].shedule: unknown key (expected name, schedule, period, lookback_days, formats, lang, dest, filter, split, deliver)`,
      schedules: 'unchanged',
    });
    expect(worker.child.exitCode).toBeNull();
  });

  it('refuses to start on a bad file: exit 2, one line per problem, no scheduler touched', async () => {
    const { file, env } = setUp(
      yaml(
        'exports:',
        '  - name: a',
        '    schedule: { cron: "0 25 * * *", tz: Mars/Olympus }',
        '    period: yesterday',
        '  - name: a',
        '    period: last-fortnight',
      ),
    );
    await queue?.upsertJobScheduler('export:kept', { pattern: '0 3 * * *', tz: 'UTC' });
    const run = await runCli(['worker'], cliEnv(env));
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(l).toMatch(new RegExp(`^${file}:\\d+:\\d+: exports\\[\\d\\]\\.`));
    expect(run.stderr).toContain('Mars/Olympus');
    expect(await schedulerIds()).toEqual(['export:kept']);
  });
});
