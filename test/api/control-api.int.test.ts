// The control API over real HTTP on 127.0.0.1, with a real redis-server, an in-process worker and
// the sandbox: auth on every route but /healthz, strict body validation with clear 400s, 413 and
// invalid JSON, deduplicated POSTs, job status, file downloads, metrics and the dashboard.

import { mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { writeMailDeliveryRecord } from '../../src/queue/mail-delivery-record.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { startHarnessApi, type HarnessApi } from './support/harness-api.js';

const TOKENS = ['first-token-0123456789', 'second-token-abcdefghij'] as const;
const DAY = '2024-03-30';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness;
let api: HarnessApi;
let base: string;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 500 })]);
  harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url });
  api = await startHarnessApi(harness, { tokens: TOKENS, bodyLimitBytes: 1024 });
  base = api.base;
});

afterAll(async () => {
  await api?.close();
  await harness?.stop();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

interface Call {
  readonly method?: string;
  readonly token?: string | null;
  readonly body?: string | object;
  readonly headers?: Record<string, string>;
}

async function call(
  path: string,
  options: Call = {},
): Promise<{
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
  json: () => Record<string, unknown>;
}> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? TOKENS[0] : options.token;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  return {
    status: response.status,
    headers: response.headers,
    text,
    bytes,
    json: () => JSON.parse(text) as Record<string, unknown>,
  };
}

describe('auth', () => {
  it('answers /healthz without a token', async () => {
    const r = await call('/healthz', { token: null });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ status: 'ok', redis: 'ok', destination: 'ok' });
  });

  it('refuses every other route without a token, with a wrong one, or with another scheme', async () => {
    for (const path of ['/exports/x', '/metrics', '/admin/queues', '/no-such-route']) {
      const missing = await call(path, { token: null });
      expect(missing.status, path).toBe(401);
      expect(missing.json()).toEqual({ error: 'unauthorized', message: expect.stringContaining('missing') });
      expect((await call(path, { token: 'first-token-012345678' })).status, path).toBe(401);
    }
    const basic = await call('/metrics', {
      token: null,
      headers: { authorization: `Basic ${Buffer.from(`x:${TOKENS[0]}`).toString('base64')}` },
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await call('/exports', { token: null, body: { from: DAY, to: DAY } })).status).toBe(401);
  });

  it('accepts every configured token', async () => {
    expect((await call('/exports/none', { token: TOKENS[1] })).status).toBe(404);
  });

  it('serves the dashboard behind the same tokens, as a bearer or a Basic password', async () => {
    const prompt = await call('/admin/queues', { token: null });
    expect(prompt.headers.get('www-authenticate')).toMatch(/^Basic/);
    const page = await call('/admin/queues', {
      token: null,
      headers: { authorization: `Basic ${Buffer.from(`ops:${TOKENS[1]}`).toString('base64')}` },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    const queues = await call('/admin/queues/api/queues');
    expect(queues.status).toBe(200);
    expect(queues.text).toContain('shift-exports');
  });
});

describe('dashboard', () => {
  const QUEUE = '/admin/queues/api/queues/shift-exports';

  it('serves its page and every asset the page loads from this API, none from another host', async () => {
    const page = await call('/admin/queues');
    expect(page.status).toBe(200);
    const refs = [...page.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThan(3);
    const external = refs.filter((ref) => /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(ref) && !ref.startsWith('/'));
    expect(external).toEqual([]);
    expect(page.text).not.toMatch(/fonts\.googleapis|fonts\.gstatic|https?:\/\/(?!www\.w3\.org)/);
    // Relative to <base href="/admin/queues/">: each answers here, and the styles import nothing.
    for (const ref of refs.filter((r) => r.startsWith('static/'))) {
      const asset = await call(`/admin/queues/${ref}`);
      expect(asset.status, ref).toBe(200);
      if (ref.endsWith('.css')) expect(asset.text, ref).not.toMatch(/@import|url\(\s*['"]?(?:https?:)?\/\//);
    }
  });

  it('drops credentials from its address before Bull Board runs, so its API calls work', async () => {
    const page = await call('/admin/queues');
    const head = page.text.slice(0, page.text.indexOf('</head>'));
    expect(head).toContain('location.username||location.password');
    expect(head.indexOf('location.replace')).toBeLessThan(page.text.indexOf('static/js/'));
  });

  it('is read-only by default: every write route answers 4xx and changes nothing', async () => {
    const queue = harness.producer.queue;
    await queue.add(
      'export-period',
      { from: DAY, to: DAY, formats: ['csv'] },
      { jobId: 'dash-job', delay: 3_600_000 },
    );
    const writes: [string, string, object?][] = [
      [
        'POST',
        `${QUEUE}/add`,
        { name: 'export-period', data: { from: DAY, to: DAY, formats: ['csv'], dest: '/etc' } },
      ],
      [
        'PATCH',
        `${QUEUE}/dash-job/update-data`,
        { jobData: { from: DAY, to: DAY, formats: ['csv'], dest: '/etc' } },
      ],
      ['PATCH', `${QUEUE}/dash-job/delay`, { delay: 0 }],
      ['PATCH', `${QUEUE}/dash-job/priority`, { priority: 1 }],
      ['PUT', `${QUEUE}/dash-job/retry`],
      ['PUT', `${QUEUE}/dash-job/promote`],
      ['PUT', `${QUEUE}/dash-job/clean`],
      ['PUT', `${QUEUE}/retry/failed`],
      ['PUT', `${QUEUE}/promote`],
      ['PUT', `${QUEUE}/clean/delayed`],
      ['PUT', `${QUEUE}/pause`],
      ['PUT', `${QUEUE}/resume`],
      ['PUT', `${QUEUE}/empty`],
      ['PUT', `${QUEUE}/obliterate`, { force: true }],
      ['PUT', `${QUEUE}/concurrency`, { concurrency: 1 }],
      ['PUT', '/admin/queues/api/queues/pause'],
      ['PUT', '/admin/queues/api/queues/resume'],
      ['DELETE', `${QUEUE}/dash-job`],
    ];
    try {
      for (const [method, path, body] of writes) {
        const r = await call(path, { method, ...(body === undefined ? {} : { body }) });
        expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${method} ${path}`).toBeLessThan(500);
      }
      const job = await queue.getJob('dash-job');
      expect(job?.data).toEqual({ from: DAY, to: DAY, formats: ['csv'] });
      expect(await job?.getState()).toBe('delayed');
      expect(await queue.count()).toBe(1);
      expect(await queue.isPaused()).toBe(false);
      // Reading still works.
      expect((await call(`${QUEUE}/dash-job`)).status).toBe(200);
    } finally {
      // Whatever a failing route did, the next tests start from an empty, running queue.
      await queue.obliterate({ force: true });
    }
  });
});

describe('POST /exports validation', () => {
  it.each([
    ['an unknown field', { from: DAY, to: DAY, token: 'x' }, /token|unrecognized/i],
    ['a wrong type', { from: DAY, to: 20240330 }, /to/],
    ['a missing field', { from: DAY }, /to/],
    ['an impossible date', { from: '2024-02-30', to: DAY }, /not a date/],
    ['from after to', { from: DAY, to: '2024-03-01' }, /after/],
    ['a period over the maximum', { from: '2023-01-01', to: DAY }, /maximum/],
    ['an unknown format', { from: DAY, to: DAY, formats: ['pdf'] }, /format/],
    ['a destination with ..', { from: DAY, to: DAY, dest: '/tmp/../etc' }, /\.\./],
    [
      'a destination with control characters',
      { from: DAY, to: DAY, dest: 's3://bucket/a\u0007b' },
      /control/,
    ],
  ])('answers 400 with {error, message} for %s, and queues nothing', async (_what, body, message) => {
    const r = await call('/exports', { body });
    expect(r.status).toBe(400);
    const json = r.json();
    expect(Object.keys(json).sort()).toEqual(['error', 'message']);
    expect(String(json['message'])).toMatch(message);
    expect(String(json['message'])).not.toContain('\n');
    // The body's fields, never the command line's flags.
    expect(String(json['message'])).not.toContain('--');
    expect(await harness.producer.queue.count()).toBe(0);
  });

  it('answers 400 for a dest inside EXPORT_DEST that is a symlink leading out of it, and queues nothing', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    symlinkSync(outside, join(harness.dest, 'escape'));
    try {
      for (const dest of [join(harness.dest, 'escape'), join(harness.dest, 'escape', 'team')]) {
        const r = await call('/exports', { body: { from: DAY, to: DAY, dest } });
        expect(r.status, dest).toBe(400);
        expect(r.json()).toEqual({
          error: 'invalid_body',
          message: expect.stringMatching(/^dest: .* is refused: /),
        });
      }
      expect(await harness.producer.queue.count()).toBe(0);
    } finally {
      rmSync(join(harness.dest, 'escape'));
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('answers 400 for invalid JSON and 413 for a body over the limit', async () => {
    const broken = await call('/exports', { body: '{"from": "2024-03-30",' });
    expect(broken.status).toBe(400);
    expect(broken.json()['error']).toBe('invalid_json');
    const large = await call('/exports', {
      body: JSON.stringify({ from: DAY, to: DAY, dest: 'x'.repeat(2000) }),
    });
    expect(large.status).toBe(413);
    expect(large.json()['error']).toBe('body_too_large');
    expect(await harness.producer.queue.count()).toBe(0);
  });
});

describe('exports', () => {
  let jobId: string;

  it('queues an export with 202 and returns the same job with 200 while it waits', async () => {
    const first = await call('/exports', { body: { from: DAY, to: DAY, formats: ['csv'] } });
    expect(first.status).toBe(202);
    jobId = String(first.json()['jobId']);
    expect(jobId).toMatch(/^export-2024-03-30_2024-03-30-csv-/);
    const second = await call('/exports', { body: { from: DAY, to: DAY, formats: ['csv'] } });
    expect(second.status).toBe(200);
    expect(second.json()).toMatchObject({ jobId, deduplicated: true });
    expect(await harness.producer.queue.count()).toBe(1);
    const view = await call(`/exports/${jobId}`);
    expect(view.json()).toMatchObject({
      id: jobId,
      state: 'waiting',
      period: { from: DAY, to: DAY },
      formats: ['csv'],
      result: null,
    });
  });

  it('answers 409 for the files of an export that has not completed', async () => {
    expect((await call(`/exports/${jobId}/files/shifts.csv`)).status).toBe(409);
  });

  it('shows the completed export and serves its files', async () => {
    await harness.startWorker();
    const outcome = await waitForJob(harness.producer.queue, await harness.events(), jobId);
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    const view = (await call(`/exports/${jobId}`)).json();
    expect(view).toMatchObject({
      state: 'completed',
      failed_reason: null,
      result: { period: { from: DAY, to: DAY } },
    });
    expect(view).not.toHaveProperty('mail_delivery');
    // What the worker's e-mail job records for the export (jobs/deliver-mail.ts) is shown with it.
    const record = {
      definition: 'daily-mail',
      state: 'failed' as const,
      at: '2024-03-31T06:00:00.000Z',
      attempts: 8,
      messages: 1,
      sent: 0,
      refused: 0,
      failed: 1,
      skipped_recipients: 0,
      unchanged: 0,
      reason:
        'MAIL_SEND: the message could not reach the SMTP server smtp://mail.example.com:587: ECONNECTION',
    };
    const exportId = String((view['result'] as { export_id: string }).export_id);
    await writeMailDeliveryRecord(harness.producer.connection, harness.prefix, exportId, record);
    expect((await call(`/exports/${jobId}`)).json()).toMatchObject({ mail_delivery: record });
    const folder = realpathSync(join(harness.dest, `${DAY}_${DAY}`));
    const file = await call(`/exports/${jobId}/files/shifts.csv`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${DAY}_${DAY}_shifts.csv"`);
    expect(file.bytes.equals(readFileSync(join(folder, 'shifts.csv')))).toBe(true);
    const manifest = await call(`/exports/${jobId}/files/manifest.json`);
    expect(manifest.json()['export_id']).toBe((view['result'] as Record<string, unknown>)['export_id']);
    expect((await call(`/exports/${jobId}/files/nothing.csv`)).status).toBe(404);
    expect((await call(`/exports/${jobId}/files/..%2Fmanifest.json`)).status).toBe(404);
  });

  it('answers 404, not 400, for a file the manifest lists that is gone from the folder', async () => {
    const folder = realpathSync(join(harness.dest, `${DAY}_${DAY}`));
    rmSync(join(folder, 'summary_by_user.csv'));
    const r = await call(`/exports/${jobId}/files/summary_by_user.csv`);
    expect(r.status).toBe(404);
    expect(r.json()).toEqual({ error: 'not_found', message: expect.stringContaining('summary_by_user.csv') });
  });

  it('answers 403 for the files of a job whose data was edited to point outside EXPORT_DEST', async () => {
    const job = await harness.producer.queue.getJob(jobId);
    const data = job?.data as Record<string, unknown>;
    await job?.updateData({ ...data, dest: '/etc' });
    try {
      const r = await call(`/exports/${jobId}/files/shifts.csv`);
      expect(r.status).toBe(403);
      expect(r.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/^DEST_NOT_ALLOWED: /) });
    } finally {
      await job?.updateData(data);
    }
  });

  it('counts the export in the metrics', async () => {
    const r = await call('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^shift_export_jobs\{state="completed"\} 1$/m);
    expect(r.text).toMatch(/^shift_export_exports_completed_total 1$/m);
    expect(r.text).toMatch(/^shift_export_rows_exported_total [1-9]\d*$/m);
    expect(r.text).toMatch(/^shift_export_rows_rejected_total \d+$/m);
    expect(r.text).toMatch(/^shift_export_upstream_retries_total 0$/m);
    expect(r.text).toMatch(/^shift_export_export_duration_seconds_count 1$/m);
    expect(r.text).toMatch(/^shift_export_export_duration_seconds_bucket\{le="\+Inf"\} 1$/m);
  });

  it('answers 404 for an unknown job', async () => {
    const r = await call('/exports/export-nothing');
    expect(r.status).toBe(404);
    expect(r.json()['error']).toBe('not_found');
  });
});
