// `shift-export run` with NOTIFY_WEBHOOK_URL, as a child process against the sandbox, a webhook
// receiver on 127.0.0.1: one signed export.published for a published export (after a 500 it
// retries, and the event is accepted once), one export.failed for a failed one (no secret in it),
// and a receiver that cannot be reached changes nothing about the run's result.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver.js';
import { tempFolderForTest } from '../support/temp-folder.js';

const DAY = '2024-03-30';
const SECRET = 'run-notify-secret-5c2a9e';
const ARGS = ['run', '--from', DAY, '--to', DAY, '--format', 'csv'];

let sandbox: RunningSandbox;
let receiver: WebhookReceiver;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 2000 });
});

afterAll(async () => {
  await sandbox.close();
});

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  await receiver.close();
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cliEnv({
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: SANDBOX_ADMIN_TOKEN,
    WFM_RETRY_ATTEMPTS: '1',
    NOTIFY_WEBHOOK_URL: `http://hook:hook-pw-77@127.0.0.1:${new URL(receiver.origin).port}/hooks/T0/B0/path-secret`,
    NOTIFY_WEBHOOK_SECRET: SECRET,
    ...extra,
  });
}

describe('run with NOTIFY_WEBHOOK_URL', () => {
  it('sends one signed export.published for the published export, retried after a 500', async () => {
    receiver.answerNext(500);
    const dest = tempFolderForTest('run-notify-');
    const r = await runCli([...ARGS, '--dest', dest], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`published to ${dest}`);

    expect(receiver.requests.map((q) => q.status)).toEqual([500, 200]);
    const [first, second] = receiver.requests;
    if (first === undefined || second === undefined) throw new Error('two requests expected');
    expect(second.raw.equals(first.raw)).toBe(true);
    expect(verifySignature(second, SECRET)).toBe(true);
    expect(second.headers['x-shift-export-event']).toBe('export.published');
    expect(second.headers['authorization']).toBe(
      `Basic ${Buffer.from('hook:hook-pw-77').toString('base64')}`,
    );
    expect(second.url).toBe('/hooks/T0/B0/path-secret');

    const manifest = parseManifest(
      readFileSync(join(realpathSync(join(dest, `${DAY}_${DAY}`)), 'manifest.json'), 'utf8'),
    );
    const body = second.json();
    expect(body).toMatchObject({
      event: 'export.published',
      id: `export.published.${manifest.export_id}`,
      job_id: null,
      period: { from: DAY, to: DAY },
      export_id: manifest.export_id,
      counts: manifest.counts,
      statistics: manifest.statistics,
      location: join(dest, `${DAY}_${DAY}`),
    });
    expect(body['duration_ms']).toEqual(expect.any(Number));
    expect(body['text']).toMatch(new RegExp(`^shift-export: ${DAY} published — [\\d,]+ rows exported`));
    const files = body['files'] as { name: string; path: string }[];
    expect(files.map((f) => f.name)).toEqual(manifest.files.map((f) => f.name));
    for (const f of files) expect(existsSync(f.path), f.path).toBe(true);

    // The retry is in the log; the URL's path and credentials are not.
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['notification attempt failed']);
    expect(r.stderr).not.toContain('path-secret');
    expect(r.stderr).not.toContain('hook-pw-77');
  });

  it('sends one export.failed for a failed export, without the token', async () => {
    const dest = tempFolderForTest('run-notify-');
    const badToken = 'wrong-token-3f9b1c77';
    const r = await runCli([...ARGS, '--dest', dest], env({ WFM_TOKEN: badToken }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('WFM_AUTH');
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    if (request === undefined) throw new Error('one request expected');
    expect(verifySignature(request, SECRET)).toBe(true);
    expect(request.headers['x-shift-export-event']).toBe('export.failed');
    const body = request.json();
    expect(body).toMatchObject({
      event: 'export.failed',
      id: expect.stringMatching(/^export\.failed\.run\./),
      period: { from: DAY, to: DAY },
      export_id: null,
      attempts: 1,
      error: { code: 'WFM_AUTH', message: expect.any(String) },
    });
    expect(body['text']).toMatch(
      new RegExp(`^shift-export: export of ${DAY} FAILED after 1 attempt: WFM_AUTH: `),
    );
    expect(request.raw.toString('utf8')).not.toContain(badToken);
    expect(request.raw.toString('utf8')).not.toContain(SECRET);
  });

  it('keeps the exit code of the export when no receiver can be reached', async () => {
    const dest = tempFolderForTest('run-notify-');
    const r = await runCli(
      [...ARGS, '--dest', dest],
      env({ NOTIFY_WEBHOOK_URL: 'http://127.0.0.1:1/hooks/nobody' }),
    );
    expect(r.code).toBe(0);
    const messages = r.stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toEqual([
      'notification attempt failed',
      'notification attempt failed',
      'notification attempt failed',
      'notification not delivered',
    ]);
  });

  it('stops at start, exit 2, on a NOTIFY_WEBHOOK_URL that is not http(s), before exporting', async () => {
    const dest = tempFolderForTest('run-notify-');
    const r = await runCli(
      [...ARGS, '--dest', dest],
      env({ NOTIFY_WEBHOOK_URL: 'smtp://ops:pw-1@mail.example.com/x' }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'shift-export run: CONFIG_INVALID: NOTIFY_WEBHOOK_URL is invalid: its URL (smtp://***@mail.example.com/…) must start with http:// or https://',
    );
    expect(receiver.requests).toHaveLength(0);
  });
});
