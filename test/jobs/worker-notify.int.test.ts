// Notifications from the worker, against a real redis-server, the sandbox over HTTP and a webhook
// receiver on 127.0.0.1: a published export gives one signed export.published, delivered by a job
// of its own on `shift-export-notifications` and retried after a 500; handing the same event over
// again queues nothing; an export that fails for good gives one export.failed (not one per
// attempt), and asked for again and failing again, another with an id of its own; the outcomes are
// in the /metrics counters.

import { existsSync } from 'node:fs';
import { QueueEvents } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadQueueConfig } from '../../src/config/queue-config.js';
import { silentLogger } from '../../src/logger.js';
import {
  notificationJobId,
  openNotificationQueue,
  QueuedNotifier,
} from '../../src/notify/notification-queue.js';
import type { NotifyEvent } from '../../src/notify/notify-event.js';
import { webhookTarget } from '../../src/notify/webhook-target.js';
import { enqueueBackfill, enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult } from '../../src/queue/export-job-result.js';
import { readExportMetrics } from '../../src/queue/export-metrics.js';
import { NOTIFY_QUEUE_NAME } from '../../src/queue/queue-names.js';
import { connectRedis } from '../../src/queue/redis-connection.js';
import { closeRedis } from '../../src/queue/redis-connection.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startHarness, type Harness, type HarnessOptions } from '../queue/support/queue-harness.js';
import { killAll, spawnWorker } from '../queue/support/worker-child.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver.js';

const DAY = '2024-03-30';
const SECRET = 'worker-notify-secret-81d0';

let redis: RedisServer;
let sandbox: RunningSandbox;
let receiver: WebhookReceiver;
let harness: Harness | undefined;
let notifyEvents: QueueEvents | undefined;

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
  sandbox.clearFaults();
  await notifyEvents?.close();
  notifyEvents = undefined;
  await harness?.stop();
  harness = undefined;
  await receiver.close();
});

function hookUrl(): string {
  return `${receiver.origin}/hooks/worker-path-secret`;
}

async function open(options: Partial<HarnessOptions> = {}): Promise<Harness> {
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    ...options,
    env: {
      NOTIFY_WEBHOOK_URL: hookUrl(),
      NOTIFY_WEBHOOK_SECRET: SECRET,
      NOTIFY_BACKOFF_MS: '20',
      NOTIFY_ATTEMPTS: '3',
      ...options.env,
    },
  });
  notifyEvents = new QueueEvents(NOTIFY_QUEUE_NAME, {
    connection: { host: '127.0.0.1', port: redis.port },
    prefix: harness.prefix,
  });
  await notifyEvents.waitUntilReady();
  return harness;
}

/** Waits until the notification job of `eventId` has finished; its state. */
async function delivery(h: Harness, eventId: string): Promise<string> {
  const queue = h.producer.queue;
  const notifications = openNotificationQueue(h.producer.connection, {
    prefix: h.prefix,
    attempts: 3,
    backoffMs: 20,
  });
  try {
    const id = notificationJobId(eventId, webhookTarget(hookUrl()).key);
    const job = await notifications.getJob(id);
    if (job === undefined) throw new Error(`no notification job ${id} in ${queue.name}`);
    if (notifyEvents === undefined) throw new Error('no notification events');
    await job.waitUntilFinished(notifyEvents).catch(() => undefined);
    return await notifications.getJob(id).then((j) => j?.getState() ?? 'missing');
  } finally {
    await notifications.close();
  }
}

describe('worker notifications', () => {
  it('sends one signed export.published per published export, retried after a 500, and never again', async () => {
    receiver.answerNext(500);
    const h = await open();
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    if (outcome.state !== 'completed') throw new Error(`the export failed: ${outcome.reason}`);
    const result = readExportJobResult(outcome.returnValue);
    if (result === undefined) throw new Error('not an export result');
    const eventId = `export.published.${result.export_id}`;

    expect(await delivery(h, eventId)).toBe('completed');
    expect(receiver.requests.map((r) => r.status)).toEqual([500, 200]);
    const accepted = receiver.accepted();
    expect(accepted).toHaveLength(1);
    const [request] = accepted;
    if (request === undefined) throw new Error('unreachable');
    expect(verifySignature(request, SECRET)).toBe(true);
    expect(request.headers['x-shift-export-event']).toBe('export.published');
    const body = request.json();
    expect(body).toMatchObject({
      event: 'export.published',
      id: eventId,
      job_id: jobId,
      export_id: result.export_id,
      period: { from: DAY, to: DAY },
      counts: result.counts,
      statistics: result.statistics,
      duration_ms: result.duration_ms,
    });
    for (const f of body['files'] as { path: string }[]) expect(existsSync(f.path), f.path).toBe(true);

    // The same event handed over again (a retried hook) finds its job: nothing is queued or sent.
    const connection = await connectRedis(loadQueueConfig({ REDIS_URL: redis.url }).redis, {
      role: 'producer',
      connectTimeoutMs: 3000,
      logger: silentLogger,
    });
    const notifications = openNotificationQueue(connection, { prefix: h.prefix, attempts: 3, backoffMs: 20 });
    try {
      await new QueuedNotifier(notifications, [webhookTarget(hookUrl())], silentLogger).notify(
        body as unknown as NotifyEvent,
      );
      expect(await notifications.getJobCounts('waiting', 'delayed', 'active', 'completed')).toEqual({
        waiting: 0,
        delayed: 0,
        active: 0,
        completed: 1,
      });
    } finally {
      await notifications.close();
      await closeRedis(connection);
    }
    expect(receiver.requests).toHaveLength(2);

    const { counters } = await readExportMetrics(h.producer.connection, h.prefix);
    expect(counters).toMatchObject({
      notifications_delivered: 1,
      notification_attempts_failed: 1,
      notifications_abandoned: 0,
    });
    expect(JSON.stringify(h.logs)).not.toContain('worker-path-secret');
  });

  it('sends one export.failed when the export fails for good, not one per attempt', async () => {
    const h = await open({ env: { JOB_ATTEMPTS: '2' } });
    sandbox.setFaults({ wfm_timers: { failNext: 10, errorStatus: 503 } });
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('failed');
    const job = await h.producer.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(2);
    const eventId = `export.failed.${jobId}.${job?.timestamp}`;

    expect(await delivery(h, eventId)).toBe('completed');
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    if (request === undefined) throw new Error('unreachable');
    expect(verifySignature(request, SECRET)).toBe(true);
    expect(request.headers['x-shift-export-event']).toBe('export.failed');
    expect(request.json()).toMatchObject({
      event: 'export.failed',
      id: eventId,
      job_id: jobId,
      period: { from: DAY, to: DAY },
      export_id: null,
      attempts: 2,
      error: { code: 'WFM_HTTP_STATUS' },
    });
    // Nothing else waits to be sent.
    const notifications = openNotificationQueue(h.producer.connection, {
      prefix: h.prefix,
      attempts: 3,
      backoffMs: 20,
    });
    try {
      expect(await notifications.getJobCounts('waiting', 'delayed', 'active')).toEqual({
        waiting: 0,
        delayed: 0,
        active: 0,
      });
    } finally {
      await notifications.close();
    }
  });

  it('sends export.failed again when a failed export is asked for again and fails again', async () => {
    const h = await open({ env: { JOB_ATTEMPTS: '1' } });
    await h.startWorker();
    const data = exportJobData(DAY, DAY, ['csv']);
    const failOnce = async (): Promise<string> => {
      sandbox.setFaults({ wfm_timers: { failNext: 10, errorStatus: 503 } });
      const { jobId, created } = await enqueueExport(h.producer.queue, data);
      expect(created).toBe(true);
      const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
      expect(outcome.state).toBe('failed');
      return jobId;
    };
    const jobId = await failOnce();
    const first = `export.failed.${jobId}.${(await h.producer.queue.getJob(jobId))?.timestamp}`;
    expect(await delivery(h, first)).toBe('completed');
    // Asked for again, the same job runs again (enqueue-export.ts) and keeps its timestamp; its
    // run is named by when it was queued again, so is its event.
    expect(await failOnce()).toBe(jobId);
    const rerun = (await h.producer.queue.getJob(jobId))?.data as { rerun?: number };
    expect(rerun.rerun).toBeGreaterThan(0);
    const second = `export.failed.${jobId}.${rerun.rerun}`;
    expect(second).not.toBe(first);
    expect(await delivery(h, second)).toBe('completed');
    expect(receiver.requests.map((request) => (request.json() as { id: string }).id)).toEqual([
      first,
      second,
    ]);
  });

  it('abandons an event a receiver refuses with a 4xx, and counts it', async () => {
    receiver.answerNext(410);
    const h = await open({ wfmToken: 'not-a-token' });
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('failed');
    const job = await h.producer.queue.getJob(jobId);
    expect(await delivery(h, `export.failed.${jobId}.${job?.timestamp}`)).toBe('failed');
    expect(receiver.requests).toHaveLength(1);
    const { counters } = await readExportMetrics(h.producer.connection, h.prefix);
    expect(counters).toMatchObject({
      notifications_delivered: 0,
      notification_attempts_failed: 1,
      notifications_abandoned: 1,
    });
    expect(h.logs.find((l) => l.msg === 'notification abandoned')).toMatchObject({
      target: receiver.origin,
      reason: expect.stringContaining('answered 410'),
    });
  });

  it('sends one backfill.completed for a backfill, and no export.published for its days', async () => {
    const h = await open({ env: { WORKER_CONCURRENCY: '2' } });
    await h.startWorker();
    const outcome = await enqueueBackfill(
      h.producer.queue,
      h.producer.flows(),
      exportJobData('2024-03-28', '2024-03-29', ['csv']),
      h.queueConfig,
    );
    const done = await waitForJob(h.producer.queue, await h.events(), outcome.jobId, () => undefined);
    if (done.state !== 'completed') throw new Error(done.reason);
    const job = await h.producer.queue.getJob(outcome.jobId);
    const eventId = `backfill.completed.${outcome.jobId}.${job?.timestamp}`;
    expect(await delivery(h, eventId)).toBe('completed');
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    if (request === undefined) throw new Error('unreachable');
    expect(verifySignature(request, SECRET)).toBe(true);
    expect(request.headers['x-shift-export-event']).toBe('backfill.completed');
    const index = done.returnValue as { totals: unknown; index_location: string };
    expect(request.json()).toMatchObject({
      event: 'backfill.completed',
      id: eventId,
      job_id: outcome.jobId,
      period: { from: '2024-03-28', to: '2024-03-29' },
      days: 2,
      counts: index.totals,
      index_location: index.index_location,
    });
    // The days published too, but queued no event of their own.
    const notifications = openNotificationQueue(h.producer.connection, {
      prefix: h.prefix,
      attempts: 3,
      backoffMs: 20,
    });
    try {
      expect(await notifications.getJobCounts('waiting', 'delayed', 'active', 'completed')).toEqual({
        waiting: 0,
        delayed: 0,
        active: 0,
        completed: 1,
      });
    } finally {
      await notifications.close();
    }
  });

  it('is wired into `shift-export worker`: the process delivers, and stops cleanly on SIGTERM', async () => {
    const h = await open();
    const child = spawnWorker(h.env);
    try {
      const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
      const [request] = await receiver.waitFor(1);
      if (request === undefined) throw new Error('unreachable');
      expect(verifySignature(request, SECRET)).toBe(true);
      expect(request.json()).toMatchObject({ event: 'export.published', job_id: jobId });
      child.child.kill('SIGTERM');
      expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
      expect(child.stderr()).toContain('"notify":["http://127.0.0.1:');
      expect(child.stderr()).not.toContain('worker-path-secret');
    } finally {
      await killAll();
    }
  });

  it('sends export.failed for a job BullMQ fails itself after it stalled too often', async () => {
    const h = await open();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    // What BullMQ's stall check writes when a job's workers died with it more than maxStalledCount
    // times: the next worker to take it fails it without running it.
    const reason = 'job stalled more than allowable limit';
    await h.producer.connection.hset(`${h.prefix}:shift-exports:${jobId}`, 'defa', reason);
    await h.startWorker();
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('failed');
    // Handed over from BullMQ's 'failed' event, after the job failed: wait for it to arrive.
    await receiver.waitFor(1);
    const job = await h.producer.queue.getJob(jobId);
    expect(await delivery(h, `export.failed.${jobId}.${job?.timestamp}`)).toBe('completed');
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.json()).toMatchObject({
      event: 'export.failed',
      job_id: jobId,
      attempts: 1,
      error: { code: 'JOB_STALLED', message: reason },
    });
  });
});
