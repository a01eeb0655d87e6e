// Delivery of export definitions end to end, with real parts: a real redis-server, the sandbox over
// HTTP (its divisions' managers include an inactive one, an invite not accepted, a login that is no
// address and a first name with CR/LF and a Bcc line), a real SMTP server and a webhook receiver on
// 127.0.0.1, an in-process worker given an EXPORTS_FILE, and the built CLI for `worker` and
// `run --export`. Nothing tells the worker who gets mail but the file: each export job names its
// definition, and the worker finds its deliver.email and deliver.webhook in the definitions in force.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { definitionExports, requireDefinition } from '../../src/definitions/definition-exports.js';
import { requireExportDefinitions } from '../../src/definitions/load-export-definitions.js';
import { mailJobId } from '../../src/notify/mail-job.js';
import { openNotificationQueue } from '../../src/notify/notification-queue.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { MAIL_JOB_NAME } from '../../src/queue/queue-names.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { tempFolderForTest } from '../support/temp-folder.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const DAY = '2024-03-30';

let redis: RedisServer;
let sandbox: RunningSandbox;
let smtp: SmtpReceiver;
let receiver: WebhookReceiver;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

beforeEach(async () => {
  [smtp, receiver] = await Promise.all([startSmtpReceiver(), startWebhookReceiver()]);
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await Promise.all([smtp.close(), receiver.close()]);
});

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** The definitions of these tests: a fixed address with its own webhook, `when: changed`, managers. */
function definitionsFile(hook: string): string {
  return yaml(
    'exports:',
    '  - name: hq-daily',
    '    period: yesterday',
    '    formats: [csv, xlsx]',
    '    deliver:',
    '      email: { to: [hq@example.com], attach: [xlsx] }',
    `      webhook: ${hook}`,
    '  - name: hq-changed',
    '    period: yesterday',
    '    formats: [csv, xlsx]',
    '    deliver:',
    '      email: { to: [controlling@example.com], when: changed }',
    '  - name: managers-weekly',
    '    period: last-week',
    '    formats: [csv, xlsx]',
    '    split: division',
    '    deliver:',
    '      email: { to: division-managers }',
  );
}

function writeFile(text: string): string {
  const file = join(tempFolderForTest('definition-delivery-'), 'exports.yaml');
  writeFileSync(file, text);
  return file;
}

async function open(file: string, env: Record<string, string> = {}): Promise<Harness> {
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: {
      EXPORTS_FILE: file,
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Reports <reports@example.com>',
      NOTIFY_BACKOFF_MS: '100',
      ...env,
    },
  });
  return harness;
}

/** Queues the export of DAY as `enqueue --export NAME` would (its formats, dest and name), and waits. */
async function exportOf(h: Harness, name: string, rerun = false): Promise<ExportJobResult> {
  const set = await requireExportDefinitions({ schedule: h.schedule, exportConfig: h.exportConfig });
  const [planned] = definitionExports(requireDefinition(set, name), [{ from: DAY, to: DAY }]);
  if (planned === undefined) throw new Error('no export planned');
  const data = exportJobData(DAY, DAY, planned.formats, planned.dest, planned.definition);
  const { jobId } = await enqueueExport(h.producer.queue, data, rerun ? { force: true } : {});
  const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
  if (outcome.state !== 'completed') throw new Error(`the export failed: ${outcome.reason}`);
  const result = readExportJobResult(outcome.returnValue);
  if (result === undefined) throw new Error('not an export result');
  return result;
}

/** The e-mail job of `result`'s export of `definition`, once finished. */
async function mailJob(
  h: Harness,
  definition: string,
  result: ExportJobResult,
  worker: Worker,
): Promise<Job> {
  const queue = openNotificationQueue(h.producer.connection, { prefix: h.prefix, attempts: 1, backoffMs: 0 });
  try {
    const id = mailJobId(definition, result.export_id);
    const done = new Promise<void>((resolve) => {
      worker.on('completed', (job) => job.id === id && resolve());
      worker.on('failed', (job) => job?.id === id && job.finishedOn !== undefined && resolve());
    });
    const state = await (await queue.getJob(id))?.getState();
    if (state !== 'completed' && state !== 'failed') await done;
    const job = await queue.getJob(id);
    if (job === undefined) throw new Error(`no e-mail job ${id}`);
    expect(await job.getState()).toBe('completed');
    return job;
  } finally {
    await queue.close();
  }
}

function notifyWorkerOf(running: { notifyWorker: Worker | undefined }): Worker {
  if (running.notifyWorker === undefined) throw new Error('no notification worker');
  return running.notifyWorker;
}

describe('the worker delivers what the definitions file asks', () => {
  it("mails a fixed address's export once with the workbook attached, and a retried job sends nothing twice", async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    const notifyWorker = notifyWorkerOf(await h.startWorker());
    const result = await exportOf(h, 'hq-daily');
    const job = await mailJob(h, 'hq-daily', result, notifyWorker);

    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail?.envelopeTo).toEqual(['hq@example.com']);
    const workbook = result.files.find((f) => f.name === 'shifts.xlsx');
    expect(mail?.parsed.attachments.map((a) => a.filename)).toEqual([`hq-daily_${DAY}_${DAY}_shifts.xlsx`]);
    const attached = mail?.parsed.attachments[0]?.content;
    expect(attached?.length).toBe(workbook?.bytes);
    expect(attached?.equals(readFileSync(join(result.location, 'shifts.xlsx')))).toBe(true);
    expect(mail?.parsed.subject).toContain('hq-daily');

    // Run again from the start, as a retry after the server accepted would: nothing is sent twice.
    const again = new Promise<Job>((resolve) =>
      notifyWorker.on('completed', (j: Job) => j.id === job.id && resolve(j)),
    );
    await job.retry('completed');
    expect((await again).returnvalue).toMatchObject({ messages: [{ status: 'already_sent' }], pending: 0 });
    expect(smtp.messages).toHaveLength(1);

    // The definition's own webhook (no NOTIFY_WEBHOOK_URL is set) hears of it, by name.
    await expect.poll(() => receiver.accepted().map((r) => r.json()['event'])).toContain('export.published');
    expect(receiver.accepted().map((r) => r.json())).toEqual([
      expect.objectContaining({
        event: 'export.published',
        definition: 'hq-daily',
        export_id: result.export_id,
        text: expect.stringMatching(/^shift-export hq-daily: /) as unknown,
      }),
    ]);
    expect(receiver.accepted()[0]?.url).toBe('/hooks/hq-daily');
  });

  it('sends a `when: changed` mail for the first export, and nothing for an unchanged re-run', async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    const notifyWorker = notifyWorkerOf(await h.startWorker());
    const first = await exportOf(h, 'hq-changed');
    await mailJob(h, 'hq-changed', first, notifyWorker);
    expect(smtp.messages.map((m) => m.envelopeTo)).toEqual([['controlling@example.com']]);

    const second = await exportOf(h, 'hq-changed', true);
    expect(second.export_id).not.toBe(first.export_id);
    const job = await mailJob(h, 'hq-changed', second, notifyWorker);
    expect(job.returnvalue).toMatchObject({ messages: [], unchanged: [null], pending: 0 });
    expect(smtp.messages).toHaveLength(1);
    // hq-changed has no webhook of its own and NOTIFY_WEBHOOK_URL is unset: no event is queued.
    const queue = openNotificationQueue(h.producer.connection, {
      prefix: h.prefix,
      attempts: 1,
      backoffMs: 0,
    });
    try {
      const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
      expect(jobs.map((j) => j.name).sort()).toEqual([MAIL_JOB_NAME, MAIL_JOB_NAME]);
    } finally {
      await queue.close();
    }
  });

  it("tells the definition's webhook of its export that failed for good, by name", async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    await h.startWorker();
    // A period that ends before it starts: a terminal failure, on the first attempt.
    const data = exportJobData(DAY, '2024-03-29', ['csv'], join(h.dest, 'hq-daily'), 'hq-daily');
    const { jobId } = await enqueueExport(h.producer.queue, data);
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('failed');
    const [request] = await receiver.waitFor(1);
    expect(request?.json()).toMatchObject({
      event: 'export.failed',
      definition: 'hq-daily',
      error: { code: 'REQUEST_INVALID' },
    });
    expect(smtp.messages).toHaveLength(0);
  });

  it('queues no e-mail and no event for an export that names no definition', async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('completed');
    const queue = openNotificationQueue(h.producer.connection, {
      prefix: h.prefix,
      attempts: 1,
      backoffMs: 0,
    });
    try {
      expect(await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed')).toEqual({
        waiting: 0,
        active: 0,
        completed: 0,
        failed: 0,
        delayed: 0,
      });
    } finally {
      await queue.close();
    }
    expect(smtp.messages).toHaveLength(0);
  });
});

describe('a definition that asks for e-mail needs SMTP_URL', () => {
  it('keeps the definitions in force when a SIGHUP brings e-mail to a worker without SMTP_URL', async () => {
    const file = writeFile(yaml('exports:', '  - name: plain', '    period: yesterday'));
    const h = await open(file, { SMTP_URL: '', SMTP_FROM: '' });
    const running = await h.startWorker();
    writeFileSync(file, definitionsFile(`${receiver.origin}/hooks/hq-daily`));
    expect(await running.reloadDefinitions()).toBe(false);
    expect(running.definitions().definitions.map((d) => d.name)).toEqual(['plain']);
    const errors = h.logs.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe(
      'export definitions not reloaded, the schedules in force are kept: SMTP_URL is not set, but the export definitions hq-daily, hq-changed, managers-weekly deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM',
    );
  });

  it('stops `worker` before Redis and `run --export` before the export: exit 2, one line', async () => {
    const file = writeFile(definitionsFile('http://127.0.0.1:1/hooks/x'));
    const env = cliEnv({
      EXPORTS_FILE: file,
      REDIS_URL: 'redis://127.0.0.1:1',
      EXPORT_DEST: tempFolderForTest('definition-delivery-dest-'),
      WFM_BASE_URL: sandbox.url,
      WFM_TOKEN: SANDBOX_READER_TOKEN,
    });
    const line =
      'SMTP_URL is not set, but the export definitions hq-daily, hq-changed, managers-weekly deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM';
    const worker = await runCli(['worker'], env);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toBe(`shift-export worker: CONFIG_INVALID: ${line}\n`);
    const run = await runCli(['run', '--export', 'hq-daily', '--date', '2024-03-31'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'shift-export run: CONFIG_INVALID: SMTP_URL is not set, but the export definitions hq-daily deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM\n',
    );
  });
});

describe('run --export', () => {
  it('mails the period right after it published and tells the definition its webhook, by name', async () => {
    const file = writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`));
    const dest = tempFolderForTest('definition-delivery-run-');
    const run = await runCli(
      ['run', '--export', 'hq-daily', '--date', '2024-03-31'],
      cliEnv({
        EXPORTS_FILE: file,
        EXPORT_DEST: dest,
        WFM_BASE_URL: sandbox.url,
        WFM_TOKEN: SANDBOX_READER_TOKEN,
        SMTP_URL: smtp.url,
        SMTP_FROM: 'reports@example.com',
      }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]?.envelopeTo).toEqual(['hq@example.com']);
    expect(smtp.messages[0]?.parsed.attachments.map((a) => a.filename)).toEqual([
      `hq-daily_${DAY}_${DAY}_shifts.xlsx`,
    ]);
    expect(receiver.accepted().map((r) => r.json())).toEqual([
      expect.objectContaining({ event: 'export.published', definition: 'hq-daily', job_id: null }),
    ]);
  });
});
