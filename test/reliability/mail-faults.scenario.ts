// E-mail faults: the SMTP server is down when a published export's mail is due (the export stays
// published, the mail is retried and arrives once the server is up), and the server refuses one
// recipient with 550 (the others get the mail once; the refused address is recorded and not tried
// again), and a worker killed after it published and queued the mail, before sending it (a second
// worker sends it: every mail arrives once). A worker in this process (a `shift-export worker` child
// for the kill), a real redis-server, the sandbox and a real SMTP server on
// 127.0.0.1; the job logs are kept for the secret sweep.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job, Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { exportRunOf } from '../../src/queue/export-run.js';
import { finishedMailJob } from '../queue/support/finished-mail-job.js';
import { openNotificationQueue } from '../../src/notify/notification-queue.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { QUICK_TAKEOVER_ENV, startHarness, type Harness } from '../queue/support/queue-harness.js';
import type { WorkerChild } from '../queue/support/worker-child.js';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startRedisHoldProxy } from '../support/redis-hold-proxy.js';
import { startSmtpReceiver } from '../support/smtp-receiver.js';
import { evidenceFolder, keepText, WFM_SECRET_TOKEN } from './support/evidence.js';
import { openQueueWorld } from './support/queue-world.js';
import { scenario } from './support/scenario.js';
import { startScenarioSandbox, sourceShape } from './support/scenario-sandbox.js';

const GROUP = 'e-mail';
const DAY = '2024-03-30';
const DEFINITION = 'reliability-mail';

let redis: RedisServer;
let sandbox: RunningSandbox;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(sourceShape(2_000))]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

async function world(smtpPort: number, to: string[]): Promise<Harness> {
  return startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    wfmToken: WFM_SECRET_TOKEN,
    mailSettingsOf: () => ({
      definition: DEFINITION,
      email: { to, cc: [], attach: ['csv'], when: 'always', lang: 'en' },
    }),
    env: {
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'reports@example.com',
      NOTIFY_BACKOFF_MS: '100',
      NOTIFY_ATTEMPTS: '30',
    },
  });
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

/** A definitions file of DEFINITION, mailing hq@example.com its CSV export of yesterday. */
function definitionsFile(folder: string, when: 'always' | 'changed'): string {
  const file = join(evidenceFolder(folder), 'exports.yaml');
  writeFileSync(
    file,
    [
      'exports:',
      `  - name: ${DEFINITION}`,
      '    period: yesterday',
      '    formats: [csv]',
      '    deliver:',
      `      email: { to: [hq@example.com], attach: [csv], when: ${when} }`,
      '',
    ].join('\n'),
  );
  return file;
}

/** Resolves once no e-mail job is open and one has ended; throws when `worker` exits, or after 60 s. */
async function emailJobsEnded(notifications: Queue, worker: WorkerChild): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const open = await notifications.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    const ended = await notifications.getJobCounts('completed', 'failed');
    if (Object.values(open).every((n) => n === 0) && (ended['completed'] ?? 0) + (ended['failed'] ?? 0) > 0)
      return;
    if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.stderr().trim()}`);
    if (Date.now() > until) throw new Error(`e-mail jobs still open: ${JSON.stringify(open)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function mailJobDone(h: Harness, worker: Worker, result: JobExport): Promise<Job> {
  return finishedMailJob(h, worker, {
    definition: DEFINITION,
    export_id: result.export_id,
    export_run: result.run,
  });
}

describe('e-mail faults', () => {
  it('SMTP down during delivery', async () => {
    await scenario(GROUP, 'SMTP down during delivery', async () => {
      const port = await freePort();
      const h = await world(port, ['hq@example.com']);
      let smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | undefined;
      try {
        const running = await h.startWorker();
        const notifyWorker = running.notifyWorker;
        if (notifyWorker === undefined) throw new Error('no notification worker');
        const failures: number[] = [];
        const twoFailures = new Promise<void>((resolve) =>
          notifyWorker.on('failed', () => {
            failures.push(1);
            if (failures.length === 2) resolve();
          }),
        );
        const result = await exportOnce(h);
        await twoFailures;
        const published = existsSync(join(result.location, 'manifest.json'));
        smtp = await startSmtpReceiver(port);
        const job = await mailJobDone(h, notifyWorker, result);
        keepText('mail-faults-smtp-down.log', JSON.stringify(h.logs));
        if (!published) throw new Error('the export was not published while SMTP was down');
        if ((await job.getState()) !== 'completed')
          throw new Error(`the e-mail job ended ${await job.getState()}`);
        if (smtp.messages.length !== 1) throw new Error(`${smtp.messages.length} mails arrived, not 1`);
        return {
          outcome: `export published; e-mail sent once after ${job.attemptsMade - 1} failed attempts, when the server came up`,
        };
      } finally {
        await h.stop();
        await smtp?.close();
      }
    });
  });

  it('one recipient refused with 550', async () => {
    await scenario(GROUP, 'one recipient refused with 550', async () => {
      const smtp = await startSmtpReceiver();
      smtp.refuse.add('gone@example.com');
      const h = await world(smtp.port, ['hq@example.com', 'gone@example.com']);
      try {
        const running = await h.startWorker();
        const notifyWorker = running.notifyWorker;
        if (notifyWorker === undefined) throw new Error('no notification worker');
        const result = await exportOnce(h);
        const job = await mailJobDone(h, notifyWorker, result);
        keepText('mail-faults-550.log', JSON.stringify(h.logs));
        const report = job.returnvalue as { messages?: { status: string; refused: string[] }[] };
        const [message] = report.messages ?? [];
        if ((await job.getState()) !== 'completed')
          throw new Error(`the e-mail job ended ${await job.getState()}`);
        // BullMQ counts the attempt that completed: 1 is the first try.
        if (job.attemptsMade !== 1) throw new Error(`the e-mail took ${job.attemptsMade} attempts, not 1`);
        if (message?.refused.join(',') !== 'gone@example.com')
          throw new Error(`refused ${JSON.stringify(message?.refused)}, not gone@example.com`);
        const to = smtp.messages.flatMap((m) => m.envelopeTo);
        if (to.join(',') !== 'hq@example.com') throw new Error(`the mail reached ${to.join(',')}`);
        return { outcome: 'one mail to the other recipient; the refused address recorded, not retried' };
      } finally {
        await h.stop();
        await smtp.close();
      }
    });
  });

  it('a worker killed between publishing and sending', async () => {
    const file = definitionsFile('mail-killed', 'always');
    await scenario(GROUP, 'a worker killed between publishing and sending', async () => {
      // The SMTP server is down while the first worker runs, so its mail cannot go before the kill.
      const port = await freePort();
      const world = await openQueueWorld('mail-killed', redis.url, sandbox, {
        EXPORTS_FILE: file,
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        SMTP_FROM: 'reports@example.com',
        NOTIFY_BACKOFF_MS: '200',
        NOTIFY_ATTEMPTS: '30',
        ...QUICK_TAKEOVER_ENV,
      });
      let smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | undefined;
      try {
        const { queue } = world.harness.producer;
        const events = await world.events();
        const data = exportJobData(DAY, DAY, ['csv'], join(world.dest, DEFINITION), DEFINITION);
        const { jobId } = await enqueueExport(queue, data);
        const first = world.worker();
        // Published: the export job is completed, and its e-mail job queued before that.
        const published = await waitForJob(queue, events, jobId);
        if (published.state !== 'completed') throw new Error(`the export failed: ${published.reason}`);
        const deadline = Date.now() + 60_000;
        while (!first.stderr().includes('"msg":"delivery e-mail queued"')) {
          if (first.child.exitCode !== null) throw new Error(`worker exited: ${first.stderr().trim()}`);
          if (Date.now() > deadline) throw new Error('the first worker queued no e-mail within 60 s');
          await new Promise((r) => setTimeout(r, 20));
        }
        first.child.kill('SIGKILL');
        await first.exited;
        if (first.stderr().includes('"msg":"delivery e-mail sent"'))
          throw new Error('the first worker sent the mail with the SMTP server down');
        smtp = await startSmtpReceiver(port);
        const second = world.worker();
        const notifications = openNotificationQueue(world.harness.producer.connection, {
          prefix: world.harness.prefix,
          attempts: 1,
          backoffMs: 0,
        });
        try {
          // Every e-mail job queued for the period has ended (sent, or found already sent).
          await emailJobsEnded(notifications, second);
          const failed = await notifications.getJobCounts('failed');
          if ((failed['failed'] ?? 0) !== 0) throw new Error(`${failed['failed']} e-mail jobs failed`);
        } finally {
          await notifications.close();
        }
        const to = smtp.messages.flatMap((m) => m.envelopeTo);
        if (to.join(',') !== 'hq@example.com')
          throw new Error(
            `${smtp.messages.length} mails arrived (to ${to.join(',')}), not 1 to hq@example.com`,
          );
        return {
          outcome: 'killed after publishing, its mail queued and not sent; the second worker sent it, once',
        };
      } finally {
        await world.finish();
        await smtp?.close();
      }
    });
  });
  it('a worker killed after queueing the mail, before its export job was completed', async () => {
    const file = definitionsFile('mail-requeued', 'changed');
    await scenario(
      GROUP,
      'a worker killed after queueing the mail, before its export job was completed',
      async () => {
        // The first worker reaches Redis through a proxy that holds back the command carrying the
        // export's result (BullMQ's move to completed): it has published and queued the mail, and is
        // killed there. The second worker runs the export job again, which publishes under a new id.
        const port = await freePort();
        const world = await openQueueWorld('mail-requeued', redis.url, sandbox, {
          EXPORTS_FILE: file,
          SMTP_URL: `smtp://127.0.0.1:${port}`,
          SMTP_FROM: 'reports@example.com',
          NOTIFY_BACKOFF_MS: '200',
          NOTIFY_ATTEMPTS: '30',
          ...QUICK_TAKEOVER_ENV,
        });
        const proxy = await startRedisHoldProxy(redis.url, '"manifest_location"');
        let smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | undefined;
        const notifications = openNotificationQueue(world.harness.producer.connection, {
          prefix: world.harness.prefix,
          attempts: 1,
          backoffMs: 0,
        });
        try {
          const { queue } = world.harness.producer;
          const events = await world.events();
          const data = exportJobData(DAY, DAY, ['csv'], join(world.dest, DEFINITION), DEFINITION);
          const { jobId } = await enqueueExport(queue, data);
          const first = world.worker({ REDIS_URL: proxy.url });
          await proxy.held;
          first.child.kill('SIGKILL');
          await first.exited;
          const queued = await notifications.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
          const firstExportId = (queued[0]?.data as { export_id?: string } | undefined)?.export_id;
          if (queued.length !== 1 || firstExportId === undefined)
            throw new Error(
              `${queued.length} e-mail jobs queued before the kill, not 1 (${JSON.stringify(await notifications.getJobCounts())}); the worker logged: ${[
                ...first.stderr().matchAll(/"msg":"([^"]*)"/g),
              ]
                .map((m) => m[1])
                .join('; ')}`,
            );
          if ((await queue.getJob(jobId))?.finishedOn !== undefined)
            throw new Error('the export job was completed before the kill');

          smtp = await startSmtpReceiver(port);
          const second = world.worker();
          const outcome = await waitForJob(queue, events, jobId);
          if (outcome.state !== 'completed') throw new Error(`the export failed: ${outcome.reason}`);
          const rerun = readExportJobResult(outcome.returnValue);
          if (rerun === undefined || rerun.export_id === firstExportId)
            throw new Error('the export job was not run again under a new export id');
          // Every e-mail job queued for the period has ended (sent, or found the export replaced).
          await emailJobsEnded(notifications, second);
          const ended = await notifications.getJobCounts('completed', 'failed');
          if ((ended['failed'] ?? 0) !== 0) throw new Error(`${ended['failed']} e-mail jobs failed`);
          // The second run's mail is this one: were it a job of its own, which of the two went first
          // would decide between one mail and two.
          if (ended['completed'] !== 1)
            throw new Error(`${ended['completed']} e-mail jobs for one export job, not 1`);
          const to = smtp.messages.flatMap((m) => m.envelopeTo);
          if (to.join(',') !== 'hq@example.com')
            throw new Error(
              `${smtp.messages.length} mails arrived (to ${to.join(',')}), not 1 to hq@example.com`,
            );
          const [done] = await notifications.getJobs(['completed']);
          const sentFor = (done?.returnvalue as { export_id?: string } | undefined)?.export_id;
          const which =
            sentFor === rerun.export_id
              ? 'the second run'
              : sentFor === firstExportId
                ? 'the first run'
                : 'neither run';
          return {
            outcome: `killed before the export job was completed, its mail queued; the job ran again under a new export id; one e-mail job, one mail arrived, for ${which}'s export`,
          };
        } finally {
          await notifications.close();
          await world.finish();
          await proxy.close();
          await smtp?.close();
        }
      },
    );
  });
});
