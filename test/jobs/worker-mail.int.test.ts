// E-mail from the worker, against a real redis-server, the sandbox over HTTP, a real SMTP server
// on 127.0.0.1 and a webhook receiver: a published export of a definition with deliver.email is
// mailed once by an `email` job of the notification queue; with the SMTP server down the export
// stays published and the job retries until the server is up; a job run again after the server
// accepted its mail sends nothing; a mail that finally fails raises export.delivery_failed (webhook,
// metric, and the record `status` shows).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Job, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exportRunOf } from '../../src/queue/export-run.js';
import { finishedMailJob } from '../queue/support/finished-mail-job.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { readExportMetrics } from '../../src/queue/export-metrics.js';
import { readMailDeliveryRecord } from '../../src/queue/mail-delivery-record.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const DAY = '2024-03-30';
const DEFINITION = 'daily-mail';

let redis: RedisServer;
let sandbox: RunningSandbox;
let receiver: WebhookReceiver;
let smtp: SmtpReceiver | undefined;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await smtp?.close();
  smtp = undefined;
  await receiver.close();
});

const mailSettingsOf = () => ({
  definition: DEFINITION,
  email: {
    to: ['hq@example.com'],
    cc: [],
    attach: ['csv' as const],
    when: 'always' as const,
    lang: 'en' as const,
  },
});

async function open(smtpPort: number, attempts: number): Promise<Harness> {
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    mailSettingsOf,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'Reports <reports@example.com>',
      NOTIFY_WEBHOOK_URL: `${receiver.origin}/hooks/mail`,
      NOTIFY_BACKOFF_MS: '100',
      NOTIFY_ATTEMPTS: String(attempts),
    },
  });
  return harness;
}

/** An export job's result, with the job's run (the e-mail job is named after it). */
type JobExport = ExportJobResult & { readonly run: string };

async function exportOnce(h: Harness): Promise<JobExport> {
  const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
  const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
  if (outcome.state !== 'completed') throw new Error(`the export failed: ${outcome.reason}`);
  const result = readExportJobResult(outcome.returnValue);
  if (result === undefined) throw new Error('not an export result');
  const job = await h.producer.queue.getJob(jobId);
  if (job === undefined) throw new Error(`no export job ${jobId}`);
  return { ...result, run: exportRunOf(job) };
}

/** The e-mail job of `result`, once it finished (completed or failed for good). */
async function finishedMailJobOf(h: Harness, result: JobExport, worker: Worker) {
  const job = await finishedMailJob(h, worker, {
    definition: DEFINITION,
    export_id: result.export_id,
    export_run: result.run,
  });
  return { job, state: await job.getState() };
}

describe('worker e-mail', () => {
  it('mails a published export once, and a job run again after the server accepted sends nothing', async () => {
    smtp = await startSmtpReceiver();
    const h = await open(smtp.port, 3);
    const running = await h.startWorker();
    const result = await exportOnce(h);
    const notifyWorker = running.notifyWorker;
    if (notifyWorker === undefined) throw new Error('no notification worker');
    const first = await finishedMailJobOf(h, result, notifyWorker);
    expect(first.state).toBe('completed');
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]?.envelopeTo).toEqual(['hq@example.com']);
    expect(smtp.messages[0]?.parsed.attachments.map((a) => a.filename)).toContain(
      `${DEFINITION}_${DAY}_${DAY}_shifts.csv`,
    );

    // The job fails after the send (simulated: it runs again from the start), as a retry would.
    const again = new Promise<Job>((resolve) =>
      notifyWorker.on('completed', (job: Job) => job.id === first.job.id && resolve(job)),
    );
    await first.job.retry('completed');
    const rerun = await again;
    expect(rerun.returnvalue).toMatchObject({ messages: [{ status: 'already_sent' }], pending: 0 });
    expect(smtp.messages).toHaveLength(1);
    const { counters } = await readExportMetrics(h.producer.connection, h.prefix);
    expect(counters.mail_messages_sent).toBe(1);
    expect(await readMailDeliveryRecord(h.producer.connection, h.prefix, result.export_id)).toMatchObject({
      definition: DEFINITION,
      state: 'sent',
      sent: 1,
    });
  });

  it('keeps the export published while the SMTP server is down, and sends once it is up', async () => {
    const port = await freePort();
    const h = await open(port, 20);
    const running = await h.startWorker();
    const notifyWorker = running.notifyWorker;
    if (notifyWorker === undefined) throw new Error('no notification worker');
    const firstFailure = new Promise<void>((resolve) => notifyWorker.on('failed', () => resolve()));
    const result = await exportOnce(h);
    expect(existsSync(join(result.location, 'manifest.json'))).toBe(true);
    await firstFailure;
    expect(await readMailDeliveryRecord(h.producer.connection, h.prefix, result.export_id)).toMatchObject({
      state: 'pending',
    });
    smtp = await startSmtpReceiver(port);
    const done = await finishedMailJobOf(h, result, notifyWorker);
    expect(done.state).toBe('completed');
    // BullMQ counts the attempt that completed: more than 1 means it failed first.
    expect(done.job.attemptsMade).toBeGreaterThan(1);
    expect(smtp.messages).toHaveLength(1);
    expect(existsSync(join(result.location, 'manifest.json'))).toBe(true);
  });

  it('raises export.delivery_failed when the mail finally fails, and status can show it', async () => {
    const h = await open(await freePort(), 2);
    const running = await h.startWorker();
    const notifyWorker = running.notifyWorker;
    if (notifyWorker === undefined) throw new Error('no notification worker');
    const result = await exportOnce(h);
    const done = await finishedMailJobOf(h, result, notifyWorker);
    expect(done.state).toBe('failed');
    expect(done.job.attemptsMade).toBe(2);
    expect(existsSync(join(result.location, 'manifest.json'))).toBe(true);
    const record = await readMailDeliveryRecord(h.producer.connection, h.prefix, result.export_id);
    expect(record).toMatchObject({ state: 'failed', failed: 1, attempts: 2 });
    expect(record?.reason).toMatch(
      /^MAIL_SEND: the message could not reach the SMTP server smtp:\/\/127\.0\.0\.1:/,
    );
    const { counters } = await readExportMetrics(h.producer.connection, h.prefix);
    expect(counters.mail_deliveries_failed).toBe(1);
    await expect
      .poll(() => receiver.accepted().map((r) => r.json()['event']))
      .toContain('export.delivery_failed');
    const event = receiver
      .accepted()
      .find((r) => r.json()['event'] === 'export.delivery_failed')
      ?.json();
    expect(event).toMatchObject({
      definition: DEFINITION,
      export_id: result.export_id,
      attempts: 2,
      messages: [{ division_id: null, recipients: 1, status: 'failed' }],
    });
  });
});
