// Asking for an export definition's run through the queue, with a real redis-server, an in-process
// worker and the sandbox over HTTP: `enqueue --export NAME` (the built CLI), the control API's
// `POST /exports {"export": NAME, "date": D}` and `GET /definitions` over real HTTP. The period
// forms of both keep working (queue-cli and control-api tests).

import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJobId } from '../../src/queue/export-job-id.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { parseManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarnessApi, type HarnessApi } from '../api/support/harness-api.js';
import { startHarness, type Harness } from './support/queue-harness.js';

const TOKEN = 'definitions-token-0123456789';
const SECRET_PATH = 'T0/B0/secret-path-4f1c';
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const DEFINITIONS = yaml(
  'exports:',
  '  - name: weekly',
  '    schedule: { cron: "0 6 * * 1", tz: Europe/Berlin }',
  '    period: last-week',
  '    formats: [csv]',
  '    filter: { divisions: [2, 1] }',
  '    deliver:',
  `      webhook: https://hooks.example.com/${SECRET_PATH}`,
  '  - name: daily',
  '    period: yesterday',
  '    lookback_days: 1',
  '    formats: [csv]',
);

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness;
let api: HarnessApi;
let file: string;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 300 })]);
  file = join(mkdtempSync(join(tmpdir(), 'definition-requests-')), 'exports.yaml');
  writeFileSync(file, DEFINITIONS);
  harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url, env: { EXPORTS_FILE: file } });
  await harness.startWorker();
  api = await startHarnessApi(harness, { tokens: [TOKEN], bodyLimitBytes: 4096 });
});

afterAll(async () => {
  await api?.close();
  await harness?.stop();
  await Promise.all([redis?.stop(), sandbox?.close()]);
  rmSync(dirname(file), { recursive: true, force: true });
});

async function call(path: string, body?: object, token: string | null = TOKEN) {
  const headers: Record<string, string> = {};
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const weeklyDest = (): string => join(harness.dest, 'weekly');
const LAST_WEEK = { from: '2024-03-25', to: '2024-03-31' };

async function completed(jobId: string): Promise<void> {
  const outcome = await waitForJob(harness.producer.queue, await harness.events(), jobId);
  if (outcome.state !== 'completed') throw new Error(outcome.reason);
}

describe('shift-export enqueue --export', () => {
  it("queues the run's exports, named after the definition, and waits for them", async () => {
    const run = await runCli(
      ['enqueue', '--export', 'daily', '--date', '2024-03-30', '--wait'],
      cliEnv(harness.env),
      120_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const dest = join(harness.dest, 'daily');
    const ids = ['2024-03-29', '2024-03-28'].map((d) =>
      exportJobId({ from: d, to: d }, ['csv'], dest, 'daily'),
    );
    expect(run.stdout.split('\n').slice(0, 2)).toEqual(ids);
    for (const d of ['2024-03-29', '2024-03-28']) {
      const manifest = readFileSync(join(realpathSync(dest), `${d}_${d}`, 'manifest.json'), 'utf8');
      expect(parseManifest(manifest).period).toEqual({ from: d, to: d });
    }
  });

  it('refuses an unknown name with a did-you-mean, exit 2, nothing queued', async () => {
    const before = await harness.producer.queue.count();
    const run = await runCli(['enqueue', '--export', 'dayly'], cliEnv(harness.env));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no export definition "dayly"');
    expect(run.stderr).toContain('did you mean "daily"?');
    expect(await harness.producer.queue.count()).toBe(before);
  });
});

describe('POST /exports {export, date}', () => {
  it('queues the run the schedule would make on that date, once', async () => {
    const first = await call('/exports', { export: 'weekly', date: '2024-04-01' });
    expect(first.status).toBe(202);
    const jobId = exportJobId(LAST_WEEK, ['csv'], weeklyDest(), 'weekly');
    expect(first.json()).toEqual({
      export: 'weekly',
      date: '2024-04-01',
      jobs: [{ jobId, ...LAST_WEEK, state: expect.any(String) as unknown, deduplicated: false }],
    });
    await completed(jobId);
    const view = await call(`/exports/${jobId}`);
    expect(view.json()).toMatchObject({ export: 'weekly', dest: weeklyDest(), state: 'completed' });
    const folder = realpathSync(join(weeklyDest(), '2024-03-25_2024-03-31'));
    expect(parseManifest(readFileSync(join(folder, 'manifest.json'), 'utf8')).period).toEqual(LAST_WEEK);
    const again = await call('/exports', { export: 'weekly', date: '2024-04-01' });
    expect(again.status).toBe(200);
    expect(again.json()['jobs']).toEqual([{ jobId, ...LAST_WEEK, state: 'completed', deduplicated: true }]);
  });

  it('answers an unknown name, a bad date and a mixed body with 400', async () => {
    const unknown = await call('/exports', { export: 'weekyl' });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'invalid_request' });
    expect(String(unknown.json()['message'])).toContain('no export definition "weekyl"');
    const date = await call('/exports', { export: 'weekly', date: '2024-13-01' });
    expect(date.status).toBe(400);
    expect(String(date.json()['message'])).toContain('date "2024-13-01" is not a real date');
    const mixed = await call('/exports', { export: 'weekly', from: '2024-03-01' });
    expect(mixed.status).toBe(400);
    expect(mixed.json()).toMatchObject({ error: 'invalid_body' });
    expect(String(mixed.json()['message'])).toContain('(expected {export, date?, force?})');
  });
});

describe('GET /definitions', () => {
  it('needs a token', async () => {
    expect((await call('/definitions', undefined, null)).status).toBe(401);
  });

  it('lists every definition with its next runs in its zone, webhook paths hidden', async () => {
    const response = await call('/definitions');
    expect(response.status).toBe(200);
    expect(response.text).not.toContain(SECRET_PATH);
    const body = response.json() as {
      source: string;
      file: string;
      definitions: {
        name: string;
        schedule: unknown;
        period: string;
        filter: unknown;
        deliver: unknown;
        dest: string;
        next_runs: { at: string; local: string; periods: { from: string; to: string }[] }[];
      }[];
    };
    expect(body.source).toBe('file');
    expect(body.file).toBe(file);
    expect(body.definitions.map((d) => d.name)).toEqual(['weekly', 'daily']);
    const [weekly, daily] = body.definitions;
    expect(weekly).toMatchObject({
      schedule: { cron: '0 6 * * 1', tz: 'Europe/Berlin' },
      period: 'last-week',
      lang: 'en',
      dest: weeklyDest(),
      filter: { divisions: [1, 2], regions: null, shops: null },
      deliver: { email: null, webhooks: ['https://hooks.example.com/…'] },
    });
    expect(weekly?.next_runs).toHaveLength(3);
    for (const run of weekly?.next_runs ?? []) {
      expect(run.local).toMatch(/^\d{4}-\d{2}-\d{2} 06:00 \+0[12]:00$/);
      expect(new Date(run.at).getUTCDay()).toBe(1);
      expect(Date.parse(run.at)).toBeGreaterThan(Date.now());
      const [period] = run.periods;
      expect((Date.parse(period?.to ?? '') - Date.parse(period?.from ?? '')) / 86_400_000).toBe(6);
    }
    expect(daily).toMatchObject({ schedule: null, period: 'yesterday', next_runs: [] });
    const one = (await call('/definitions?runs=1')).json() as typeof body;
    expect(one.definitions[0]?.next_runs).toHaveLength(1);
    expect((await call('/definitions?runs=0')).status).toBe(400);
  });

  it('answers 503 with the first problem while the file is broken', async () => {
    writeFileSync(file, yaml('exports:', '  - name: Weekly', '    period: yesterday'));
    try {
      const response = await call('/definitions');
      expect(response.status).toBe(503);
      expect(response.json()).toMatchObject({ error: 'exports_file_invalid' });
      expect(String(response.json()['message'])).toContain(`${file}:2:`);
    } finally {
      writeFileSync(file, DEFINITIONS);
    }
  });
});
