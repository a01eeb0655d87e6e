// The e-mail of `run` for a definition with deliver.email: a real export against the sandbox,
// published to a local folder, mailed to a real SMTP server on 127.0.0.1 in this process; a
// server that is down leaves the run's result alone, says so, and raises export.delivery_failed.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadNotifyConfig } from '../../src/config/notify-config.js';
import { loadS3Config } from '../../src/config/s3-config.js';
import { loadSmtpConfig } from '../../src/config/smtp-config.js';
import { loadWfmConfig, requireUpstream } from '../../src/config/wfm-config.js';
import { deliverRunMail } from '../../src/cli/run-mail.js';
import type { ExportResult } from '../../src/export/run-export.js';
import { silentLogger } from '../../src/logger.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { freePort } from '../support/redis-server.js';
import { runConfiguredExport } from '../support/run-configured-export.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const DAY = '2024-03-30';

let sandbox: RunningSandbox;
let dest: string;
let result: ExportResult;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  dest = mkdtempSync(join(tmpdir(), 'run-mail-'));
  env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN };
  ({ result } = await runConfiguredExport(env, { from: DAY, to: DAY }, ['csv', 'xlsx']));
});

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

let smtp: SmtpReceiver;
let receiver: WebhookReceiver;

beforeEach(async () => {
  smtp = await startSmtpReceiver();
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  await smtp.close();
  await receiver.close();
});

function tty(): { stream: PassThrough & { isTTY: boolean }; text: () => string } {
  const stream = Object.assign(new PassThrough(), { isTTY: true });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

function send(smtpUrl: string, stderr = tty()) {
  return deliverRunMail(result, {
    definition: 'monthly',
    email: {
      to: ['controlling@example.com'],
      cc: ['hr@example.com'],
      attach: ['xlsx'],
      when: 'always',
      lang: 'en',
    },
    smtp: loadSmtpConfig({ SMTP_URL: smtpUrl, SMTP_FROM: 'reports@example.com' }),
    notifyConfig: loadNotifyConfig({ NOTIFY_WEBHOOK_URL: `${receiver.origin}/hooks/run-mail` }),
    dest,
    s3Config: () => loadS3Config({}),
    wfm: requireUpstream(loadWfmConfig(env)),
    logger: silentLogger,
    io: { stdout: new PassThrough(), stderr: stderr.stream, env: {} },
    firstDelayMs: 1,
  });
}

describe('deliverRunMail', () => {
  it('mails the published workbook to the listed addresses once', async () => {
    const report = await send(smtp.url);
    expect(report?.messages).toMatchObject([{ status: 'sent', attached: 1, recipients: 2 }]);
    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail?.envelopeTo).toEqual(['controlling@example.com', 'hr@example.com']);
    expect(mail?.parsed.attachments.map((a) => a.filename)).toEqual([`monthly_${DAY}_${DAY}_shifts.xlsx`]);
    const workbook = result.manifest.files.find((f) => f.name === 'shifts.xlsx');
    expect(mail?.parsed.attachments[0]?.size).toBe(workbook?.bytes);
    expect(mail?.parsed.subject).toContain(`monthly: all divisions, ${DAY}`);
    expect(receiver.requests).toHaveLength(0);
  });

  it('leaves the export as it was and warns when the SMTP server is down', async () => {
    const stderr = tty();
    const report = await send(`smtp://127.0.0.1:${await freePort()}`, stderr);
    expect(report?.pending).toBe(1);
    expect(report?.messages[0]?.status).toBe('failed');
    expect(stderr.text()).toMatch(
      /^warning: the e-mail of monthly to its recipients was not sent: MAIL_SEND: /m,
    );
    expect(smtp.messages).toHaveLength(0);
    expect(receiver.accepted().map((r) => r.json())).toMatchObject([
      {
        event: 'export.delivery_failed',
        definition: 'monthly',
        export_id: result.manifest.export_id,
        messages: [{ division_id: null, recipients: 2, status: 'failed' }],
      },
    ]);
  });
});
