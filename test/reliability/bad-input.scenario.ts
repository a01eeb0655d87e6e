// Bad input at every entry point: CLI flags, environment variables, control-API bodies,
// destinations and prefixes. Each must be answered with one clear line (a CLI exit 2 or 1, an API
// 400/413 with {error, message}) and nothing written: no file in the destination, no job queued.
// One table row per entry point, counting the cases refused properly.

import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startApiChild, type ApiChild } from './support/api-child.js';
import { evidenceFolder, keepText, WFM_SECRET_TOKEN } from './support/evidence.js';
import { openQueueWorld, type QueueWorld } from './support/queue-world.js';
import { scenario } from './support/scenario.js';
import { sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'bad input';
const DAY = '2024-03-30';
const API_TOKEN = 'api-token-bad-input-0123456789';

let redis: RedisServer;
let sandbox: RunningSandbox;
let world: QueueWorld;
let api: ApiChild;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(sourceShape(2000))]);
  world = await openQueueWorld('bad-input', redis.url, sandbox);
  api = await startApiChild('bad-input', { ...world.harness.env, API_TOKENS: API_TOKEN });
});

afterAll(async () => {
  await api?.stop();
  await world?.finish();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

interface CliCase {
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  readonly code: number;
  readonly pattern: RegExp;
}

/** Runs each case; returns the names of those not refused with one matching line and an empty dest. */
async function refusedByCli(label: string, cases: readonly CliCase[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) {
    const dest = evidenceFolder('bad-input');
    const args = c.args.includes('--dest') || c.args[0] !== 'run' ? c.args : [...c.args, '--dest', dest];
    const r = await runCli(
      args,
      cliEnv({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: WFM_SECRET_TOKEN, REDIS_URL: redis.url, ...c.env }),
      30_000,
    );
    keepText(`bad-input-${label}`, `${c.name}: exit ${r.code}\n${r.stdout}${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    const ok =
      r.code === c.code &&
      lines.length === 1 &&
      c.pattern.test(lines[0] ?? '') &&
      readdirSync(dest).length === 0;
    if (!ok) wrong.push(`${c.name} (exit ${r.code}: ${r.stderr.trim().slice(0, 200)})`);
  }
  return wrong;
}

function summary(cases: number, wrong: readonly string[], what: string): { outcome: string } {
  if (wrong.length > 0) throw new Error(`${wrong.length}/${cases} not refused cleanly: ${wrong.join('; ')}`);
  return { outcome: `${cases}/${cases} refused with one line, nothing written${what}` };
}

const run = (...args: string[]): string[] => ['run', ...args];
const period = ['--from', DAY, '--to', DAY];

describe('bad input', () => {
  it('refuses bad CLI flags', () =>
    scenario(GROUP, 'CLI flags', async () => {
      const file = join(mkdtempSync(join(evidenceFolder('bad-input'), 'f-')), 'a-file');
      writeFileSync(file, 'not a folder');
      const cases: CliCase[] = [
        {
          name: 'impossible date',
          args: run('--from', '2024-02-30', '--to', DAY),
          code: 2,
          pattern: /--from "2024-02-30" is not a date/,
        },
        {
          name: 'from after to',
          args: run('--from', DAY, '--to', '2024-03-01'),
          code: 2,
          pattern: /is after --to/,
        },
        {
          name: 'period over the maximum',
          args: run('--from', '2024-01-01', '--to', DAY),
          code: 2,
          pattern: /maximum of 31/,
        },
        {
          name: 'unknown format',
          args: run(...period, '--format', 'pdf'),
          code: 2,
          pattern: /unknown format "pdf"/,
        },
        { name: 'unknown flag', args: run(...period, '--frmo', 'x'), code: 2, pattern: /--frmo/ },
        {
          name: 'enqueue: from after to',
          args: ['enqueue', '--from', DAY, '--to', '2024-03-01'],
          code: 2,
          pattern: /is after --to/,
        },
        {
          name: 'a --dest that cannot be written',
          args: run(...period, '--dest', join(file, 'sub')),
          code: 1,
          pattern: /DEST_|not a folder|ENOTDIR/,
        },
      ];
      return summary(cases.length, await refusedByCli('cli', cases), '');
    }));

  it('refuses bad environment variables', () =>
    scenario(GROUP, 'environment variables', async () => {
      const cases: CliCase[] = [
        {
          name: 'missing token',
          args: run(...period),
          env: { WFM_TOKEN: '' },
          code: 2,
          pattern: /WFM_TOKEN is not set/,
        },
        {
          name: 'malformed WFM_BASE_URL',
          args: run(...period),
          env: { WFM_BASE_URL: 'ftp:/x' },
          code: 2,
          pattern: /WFM_BASE_URL/,
        },
        {
          name: 'negative WFM_RETRY_ATTEMPTS',
          args: run(...period),
          env: { WFM_RETRY_ATTEMPTS: '-1' },
          code: 2,
          pattern: /WFM_RETRY_ATTEMPTS/,
        },
        {
          name: 'negative EXPORT_MAX_DAYS',
          args: run(...period),
          env: { EXPORT_MAX_DAYS: '-3' },
          code: 2,
          pattern: /EXPORT_MAX_DAYS/,
        },
        {
          name: 'non-numeric WFM_BODY_TIMEOUT_MS',
          args: run(...period),
          env: { WFM_BODY_TIMEOUT_MS: 'soon' },
          code: 2,
          pattern: /WFM_BODY_TIMEOUT_MS/,
        },
        {
          name: 'malformed REDIS_URL',
          args: ['enqueue', ...period],
          env: { REDIS_URL: 'not a url' },
          code: 2,
          pattern: /REDIS_URL/,
        },
        {
          name: 'negative S3_PART_SIZE_MB',
          args: run(...period, '--dest', 's3://bucket-x/p'),
          env: { S3_PART_SIZE_MB: '-5' },
          code: 2,
          pattern: /S3_PART_SIZE_MB/,
        },
        {
          name: 'API without API_TOKENS',
          args: ['api'],
          env: { API_TOKENS: '' },
          code: 2,
          pattern: /API_TOKENS is not set/,
        },
      ];
      return summary(cases.length, await refusedByCli('env', cases), '');
    }));

  it('refuses bad destinations and prefixes on the CLI', () =>
    scenario(GROUP, 'destinations (CLI run, enqueue)', async () => {
      const dests = [
        ['local ..', 'exports/../etc', /"\.\." segment/],
        ['s3 prefix ..', 's3://bucket-x/a/../b', /"\.\." segment/],
        ['s3 prefix leading /', 's3://bucket-x//abs', /starts with "\/"|empty segment/],
        ['s3 control char', 's3://bucket-x/a\u0007b', /control characters/],
        ['local control char', 'out\u001bdir', /control characters/],
        ['bad bucket', 's3://Bad_Bucket/x', /not a valid bucket name/],
      ] as const;
      const cases: CliCase[] = dests.flatMap(([name, dest, pattern]) => [
        { name: `run ${name}`, args: run(...period, '--dest', dest), code: 2, pattern },
        { name: `enqueue ${name}`, args: ['enqueue', ...period, '--dest', dest], code: 2, pattern },
      ]);
      const wrong = await refusedByCli('dest', cases);
      const queued = await world.harness.producer.queue.count();
      if (queued !== 0) wrong.push(`${queued} jobs queued`);
      return summary(cases.length, wrong, ', no job queued');
    }));

  it('refuses bad control-API bodies', () =>
    scenario(GROUP, 'control-API bodies', async () => {
      const post = async (body: string, contentType = 'application/json') => {
        const r = await fetch(`${api.base}/exports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': contentType },
          body,
        });
        return { status: r.status, text: await r.text() };
      };
      const cases: [string, string, number][] = [
        ['wrong type', JSON.stringify({ from: DAY, to: 20240330 }), 400],
        ['extra field', JSON.stringify({ from: DAY, to: DAY, token: 'x' }), 400],
        ['missing field', JSON.stringify({ from: DAY }), 400],
        ['array body', '[]', 400],
        ['invalid JSON', '{"from": "2024-03-30",', 400],
        ['1 MB body', JSON.stringify({ from: DAY, to: DAY, dest: 'x'.repeat(1024 * 1024) }), 413],
        ['impossible date', JSON.stringify({ from: '2024-02-30', to: DAY }), 400],
        ['dest with ..', JSON.stringify({ from: DAY, to: DAY, dest: '/tmp/../etc' }), 400],
        [
          'dest s3 prefix with leading /',
          JSON.stringify({ from: DAY, to: DAY, dest: 's3://bucket-x//a' }),
          400,
        ],
        [
          'dest with control characters',
          JSON.stringify({ from: DAY, to: DAY, dest: 's3://bucket-x/a\u0000b' }),
          400,
        ],
        [
          'dest: a local folder outside EXPORT_DEST',
          JSON.stringify({ from: DAY, to: DAY, dest: '/etc/cron.d' }),
          400,
        ],
        ['not JSON content type', 'from=2024-03-30', 415],
      ];
      const wrong: string[] = [];
      for (const [name, body, status] of cases) {
        const r = await post(
          body,
          name === 'not JSON content type' ? 'application/x-www-form-urlencoded' : 'application/json',
        );
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(r.text) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        const message = json?.['message'];
        const ok =
          r.status === status &&
          typeof json?.['error'] === 'string' &&
          typeof message === 'string' &&
          !message.includes('\n');
        if (!ok) wrong.push(`${name} (${r.status}: ${r.text.slice(0, 160)})`);
      }
      const queued = await world.harness.producer.queue.count();
      if (queued !== 0) wrong.push(`${queued} jobs queued`);
      return summary(cases.length, wrong, ', no job queued');
    }));
});
