// The worker process's composition root: one BullMQ Worker on `shift-exports` running the job
// kinds, the export definitions' Job Schedulers reconciled at start and on reloadDefinitions
// (SIGHUP: definitions-reload.ts), the notification worker (worker-notifications.ts) and the stop
// (worker-stop.ts: an ordered list of bounded steps). On the first SIGTERM/SIGINT the worker takes
// no new job and gives running exports SHUTDOWN_GRACE_MS to finish; then it aborts them and hands
// each job back to the wait list with job.moveToWait (no attempt used, another worker takes it at
// once). A second signal skips the rest of the grace period. A worker killed outright (SIGKILL,
// crash) leaves its job locked; when the lock expires (WORKER_LOCK_DURATION_MS) another worker's
// stall check puts it back, and since an export publishes its manifest last, nothing partial was
// visible. With NOTIFY_WEBHOOK_URL set, a job's outcome that is an event (job-notifications.ts) is
// handed to the queue `shift-export-notifications` after the processor; an export job of a
// definition also gets its definition's delivery (definition-delivery.ts), looked up in the
// definitions in force. Definitions that ask for e-mail need SMTP_URL, at start and on reload.

import { hostname } from 'node:os';
import { UnrecoverableError, WaitingError, Worker, type Job, type Queue } from 'bullmq';
import type { SmtpConfig } from '../src/config/smtp-config.js';
import { openExportQueue } from '../src/queue/export-queue.js';
import { collectIdleGarbage } from './idle-collection.js';
import { EXPORT_QUEUE_NAME, JOB_NAMES } from '../src/queue/queue-names.js';
import { isShutdownAbort, toJobFailure } from '../src/queue/job-failure.js';
import { backoffStrategy } from '../src/queue/retry-backoff.js';
import { createBackfillProcessor } from './backfill.js';
import { createExportPeriodProcessor } from './export-period.js';
import { createNightlyProcessor } from './nightly.js';
import { createScheduledExportProcessor, reconcileSchedules, withSchedulesLock } from './scheduled-export.js';
import type { ExportDefinitions } from '../src/definitions/export-definition.js';
import { definitionDelivery } from './definition-delivery.js';
import { definitionsInForce, definitionsSource } from './definitions-reload.js';
import { RunningJobs } from './running-jobs.js';
import { startNotifications } from './worker-notifications.js';
import { workerStop } from './worker-stop.js';
import type { ExportWorkerOptions } from './worker-options.js';
import { definitionsWithEmail } from '../src/definitions/export-definition.js';
import { assertSmtpForEmail } from '../src/notify/smtp-required.js';

export type { ExportWorkerOptions } from './worker-options.js';

export interface RunningExportWorker {
  readonly worker: Worker;
  readonly queue: Queue;
  /** The worker of `shift-export-notifications`, when NOTIFY_WEBHOOK_URL is set. */
  readonly notifyWorker: Worker | undefined;
  /** The definitions in force: the file as last loaded successfully. */
  definitions(): ExportDefinitions;
  /**
   * Loads the definitions again (SIGHUP) and reconciles the schedules with them. A file that fails
   * to load changes nothing and logs one error line; resolves whether the new file is in force.
   */
  reloadDefinitions(): Promise<boolean>;
  /**
   * Stops taking jobs, lets running ones finish within the grace period, then aborts and hands
   * them back, closes the connections. Resolves true when everything closed in time. A second call
   * ends the grace period at once.
   */
  stop(reason: string): Promise<boolean>;
}

/** A worker given no SMTP settings sends no e-mail. */
const NO_SMTP: SmtpConfig = { server: undefined, from: undefined, maxAttachmentBytes: 0 };

type Processor = (job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>;

export async function startExportWorker(options: ExportWorkerOptions): Promise<RunningExportWorker> {
  const { connection, queueConfig, tuning, logger } = options;
  const queue = openExportQueue(connection, queueConfig);
  // Without a listener BullMQ prints connection errors to the console, outside the JSON log.
  queue.on('error', (error) => logger.warn({ err: error }, 'queue error'));
  // A file whose definitions ask for e-mail needs SMTP_URL; the command says so before Redis.
  const smtpRule = (set: ExportDefinitions): void =>
    assertSmtpForEmail(definitionsWithEmail(set), options.notify?.smtp ?? NO_SMTP);
  smtpRule(options.definitions.initial);
  const reconcile = (set: ExportDefinitions) =>
    withSchedulesLock(connection, queueConfig.prefix, logger, () =>
      reconcileSchedules(queue, set, queueConfig),
    );
  const definitions = definitionsInForce({
    initial: options.definitions.initial,
    load: options.definitions.load,
    check: smtpRule,
    reconcile,
    logger,
  });
  const currentDefinitions = definitions.current;
  const processors: Readonly<Record<string, Processor>> = {
    [JOB_NAMES.exportPeriod]: createExportPeriodProcessor({
      exportConfig: options.exportConfig,
      wfm: options.wfm,
      s3Config: options.s3Config,
      logger,
      definitions: currentDefinitions,
      metrics: { redis: connection, prefix: queueConfig.prefix },
      ...(options.progressIntervalMs === undefined ? {} : { progressIntervalMs: options.progressIntervalMs }),
    }),
    [JOB_NAMES.scheduledExport]: createScheduledExportProcessor({
      queue,
      definitions: currentDefinitions,
      logger,
    }),
    [JOB_NAMES.nightly]: createNightlyProcessor({
      queue,
      schedule: options.schedule,
      exportConfig: options.exportConfig,
      logger,
    }),
    [JOB_NAMES.backfill]: createBackfillProcessor({
      exportConfig: options.exportConfig,
      s3Config: options.s3Config,
      logger,
    }),
  };

  const notifications = startNotifications(options, definitionDelivery(currentDefinitions));

  /** Jobs in the processor now: what the stop waits for. */
  const jobs = new RunningJobs();
  // Three parameters: BullMQ passes the AbortSignal only to processors that declare it.
  const dispatch = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    const processor = processors[job.name];
    if (processor === undefined)
      throw new UnrecoverableError(
        `unknown job name "${job.name}" (this worker runs ${Object.keys(processors).join(', ')})`,
      );
    jobs.enter();
    try {
      const value = await processor(job, token, signal);
      await notifications?.events.completed(job, value);
      return value;
    } catch (error) {
      if (isShutdownAbort(signal) && token !== undefined) {
        await job.moveToWait(token);
        logger.info({ jobId: job.id }, 'job handed back to the queue');
        throw new WaitingError();
      }
      const failure = toJobFailure(error);
      await notifications?.events.failed(job, error, failure);
      throw failure;
    } finally {
      if (jobs.leave()) {
        const collectedMs = collectIdleGarbage();
        if (collectedMs !== undefined) logger.debug({ collectedMs }, 'idle: main thread garbage collected');
      }
    }
  };

  const worker = new Worker(EXPORT_QUEUE_NAME, dispatch, {
    connection,
    prefix: queueConfig.prefix,
    concurrency: queueConfig.concurrency,
    lockDuration: tuning.lockDurationMs,
    stalledInterval: tuning.stalledIntervalMs,
    maxStalledCount: 2,
    settings: { backoffStrategy },
    name: `${hostname()}-${process.pid}`,
    autorun: false,
  });
  worker.on('error', (error) => logger.error({ err: error }, 'worker error'));
  worker.on('active', (job) => logger.info({ jobId: job.id, name: job.name, data: job.data }, 'job started'));
  worker.on('completed', (job) => logger.info({ jobId: job.id, name: job.name }, 'job completed'));
  worker.on('failed', (job, error) => {
    logger.warn(
      { jobId: job?.id, name: job?.name, attemptsMade: job?.attemptsMade, reason: error.message },
      'job attempt failed',
    );
    // Failed by BullMQ without running the processor: a job that stalled too often (its workers
    // died with it). The processor's own failures were notified where they were thrown.
    if (job?.deferredFailure !== undefined) void notifications?.events.failed(job, error, error);
  });
  worker.on('stalled', (jobId) =>
    logger.warn({ jobId }, 'stalled job put back in the queue (its worker stopped renewing the lock)'),
  );

  const schedules = await reconcile(currentDefinitions());
  await worker.waitUntilReady();
  if (notifications !== undefined) {
    await notifications.worker.waitUntilReady();
    void notifications.worker
      .run()
      .catch((error: unknown) =>
        logger.error({ err: error }, 'notification worker loop ended with an error'),
      );
  }
  void worker
    .run()
    .catch((error: unknown) => logger.error({ err: error }, 'worker loop ended with an error'));
  logger.info(
    {
      queue: EXPORT_QUEUE_NAME,
      redis: queueConfig.redis.where,
      prefix: queueConfig.prefix,
      concurrency: queueConfig.concurrency,
      definitions: definitionsSource(currentDefinitions()),
      schedules: schedules.upserted,
      schedulesRemoved: schedules.removed,
      notify: notifications === undefined ? false : notifications.targets,
    },
    'worker started',
  );

  const stop = workerStop({
    worker,
    queue,
    notifications,
    connection,
    jobs,
    graceMs: queueConfig.shutdownGraceMs,
    logger,
  });

  return {
    worker,
    queue,
    notifyWorker: notifications?.worker,
    definitions: currentDefinitions,
    reloadDefinitions: definitions.reload,
    stop,
  };
}
