// The worker process: one BullMQ Worker on `shift-exports` running the job kinds, the export
// definitions' Job Schedulers reconciled at start and on reloadDefinitions (SIGHUP: the file read
// again without a restart; a file that fails to load keeps the schedules in force), and the
// graceful stop. On the first SIGTERM/SIGINT the worker
// takes no new job and gives running exports SHUTDOWN_GRACE_MS to finish; then it aborts them
// (BullMQ's AbortSignal -> runExport -> uploads aborted, nothing published) and hands each job
// back to the wait list with job.moveToWait — no attempt used, another worker takes it at once.
// A second signal skips the rest of the grace period. A worker killed outright (SIGKILL, crash)
// leaves its job locked; when the lock expires (WORKER_LOCK_DURATION_MS) another worker's stall
// check puts it back, and since an export publishes its manifest last, nothing partial was visible.
// Every closing step is bounded, so a worker whose Redis is unreachable still stops when told to.
// With NOTIFY_WEBHOOK_URL set, a job's outcome that is an event (job-notifications.ts) is handed to
// the queue `shift-export-notifications` after the processor, and a second BullMQ Worker on that
// queue delivers it (notify.ts): a slow receiver never holds an export slot. An export job of a
// definition also gets its definition's delivery (definition-delivery.ts), looked up in the
// definitions in force: its events go to its own webhooks too, and with SMTP_URL its e-mail is
// queued there (deliver-mail.ts). Definitions that ask for e-mail need SMTP_URL, at start and on
// reload (a reload that breaks the rule is refused like a broken file).

import { hostname } from 'node:os';
import { UnrecoverableError, WaitingError, Worker, type Job, type Queue } from 'bullmq';
import type { RedisClient } from '../src/queue/redis-connection.js';
import type { ConnectedWfmConfig } from '../src/config/wfm-config.js';
import type { ExportConfig } from '../src/config/export-config.js';
import type { NotifyConfig } from '../src/config/notify-config.js';
import type { QueueConfig } from '../src/config/queue-config.js';
import type { S3Config } from '../src/config/s3-config.js';
import type { ScheduleConfig } from '../src/config/schedule-config.js';
import type { SmtpConfig } from '../src/config/smtp-config.js';
import type { Logger } from '../src/logger.js';
import { openExportQueue } from '../src/queue/export-queue.js';
import { collectIdleGarbage } from './idle-collection.js';
import { isShutdownAbort, SHUTDOWN_REASON, toJobFailure } from '../src/queue/job-failure.js';
import {
  EXPORT_QUEUE_NAME,
  JOB_NAMES,
  MAIL_JOB_NAME,
  NOTIFY_JOB_NAME,
  NOTIFY_QUEUE_NAME,
} from '../src/queue/queue-names.js';
import type { MailSettings } from '../src/notify/mail-recipients.js';
import { smtpSender } from '../src/notify/smtp-sender.js';
import { openNotificationQueue, QueuedNotifier } from '../src/notify/notification-queue.js';
import { webhookTargets, type WebhookTarget } from '../src/notify/webhook-target.js';
import type { QueueTuning } from '../src/config/queue-tuning.js';
import { closeRedis } from '../src/queue/redis-connection.js';
import { settleWithin } from '../src/settle-within.js';
import { backoffStrategy } from '../src/queue/retry-backoff.js';
import { createBackfillProcessor } from './backfill.js';
import { createExportPeriodProcessor } from './export-period.js';
import { jobNotifications, type JobNotifications } from './job-notifications.js';
import { createNightlyProcessor } from './nightly.js';
import { createScheduledExportProcessor, reconcileSchedules, withSchedulesLock } from './scheduled-export.js';
import { formatProblem } from '../src/definitions/definition-problem.js';
import type { DefinitionsResult } from '../src/definitions/load-export-definitions.js';
import type { ExportDefinitions } from '../src/definitions/export-definition.js';
import { createNotifyProcessor } from './notify.js';
import { createDeliverMailProcessor } from './deliver-mail.js';
import { definitionDelivery, type DefinitionDelivery } from './definition-delivery.js';
import { definitionsWithEmail } from '../src/definitions/export-definition.js';
import { assertSmtpForEmail } from '../src/notify/smtp-required.js';
import { ConfigError } from '../src/errors.js';

/** Webhook deliveries one worker process runs at once (each waits at most NOTIFY_TIMEOUT_MS). */
export const NOTIFY_CONCURRENCY = 4;

/** How long handing jobs back may take after the grace period before the worker gives up on it. */
export const HAND_BACK_TIMEOUT_MS = 15_000;
/** Longest wait for the closing steps after that (they hang while Redis is unreachable). */
export const CLOSE_STEP_TIMEOUT_MS = 3_000;

export interface ExportWorkerOptions {
  /** A worker-role connection (maxRetriesPerRequest: null); the worker closes it when it stops. */
  readonly connection: RedisClient;
  readonly queueConfig: QueueConfig;
  readonly tuning: QueueTuning;
  readonly schedule: ScheduleConfig;
  /**
   * The export definitions loaded at start (requireExportDefinitions: a bad file never gets this
   * far), and how to load them again on reloadDefinitions.
   */
  readonly definitions: {
    readonly initial: ExportDefinitions;
    readonly load: () => Promise<DefinitionsResult>;
  };
  readonly exportConfig: ExportConfig;
  readonly wfm: ConnectedWfmConfig;
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  /** Smallest time between two progress writes of a job (default 1000 ms). */
  readonly progressIntervalMs?: number;
  /** Webhooks (NOTIFY_*); absent or without URLs: no notifications. */
  readonly notify?: {
    readonly config: NotifyConfig;
    /** Values of secret-named variables, scrubbed from failure messages. */
    readonly knownSecrets: readonly string[];
    /** SMTP_* (e-mail of definitions with `deliver.email`); absent or without SMTP_URL: no e-mail. */
    readonly smtp?: SmtpConfig;
    /**
     * The `deliver.email` of the definition an export job ran for; undefined: the export sends no
     * e-mail. Default: the job's `export` looked up in the definitions in force (definition-delivery.ts).
     */
    readonly mailSettingsOf?: (
      job: Job,
    ) => { readonly definition: string; readonly email: MailSettings } | undefined;
  };
}

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
  let definitions = options.definitions.initial;
  const currentDefinitions = (): ExportDefinitions => definitions;
  // A file whose definitions ask for e-mail needs SMTP_URL; the command says so before Redis.
  const smtpRule = (set: ExportDefinitions): void =>
    assertSmtpForEmail(definitionsWithEmail(set), options.notify?.smtp ?? NO_SMTP);
  smtpRule(definitions);
  const reconcile = (set: ExportDefinitions) =>
    withSchedulesLock(connection, queueConfig.prefix, logger, () =>
      reconcileSchedules(queue, set, queueConfig),
    );
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

  /** Jobs in the processor now: with none, stopping has nothing to wait for. */
  let running = 0;
  // Three parameters: BullMQ passes the AbortSignal only to processors that declare it.
  const dispatch = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    const processor = processors[job.name];
    if (processor === undefined)
      throw new UnrecoverableError(
        `unknown job name "${job.name}" (this worker runs ${Object.keys(processors).join(', ')})`,
      );
    running++;
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
      running--;
      if (running === 0) {
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

  const schedules = await reconcile(definitions);
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
      definitions: definitionsSource(definitions),
      schedules: schedules.upserted,
      schedulesRemoved: schedules.removed,
      notify: notifications === undefined ? false : notifications.targets,
    },
    'worker started',
  );

  // One reload at a time: a second SIGHUP during a reload waits for it, then reads the file again.
  let reloading: Promise<boolean> = Promise.resolve(true);
  const reloadDefinitions = (): Promise<boolean> => {
    reloading = reloading.then(async () => {
      const loaded = await options.definitions.load().catch((error: unknown): DefinitionsResult => ({
        ok: false,
        problems: [
          {
            file: 'EXPORTS_FILE',
            line: undefined,
            column: undefined,
            path: '',
            message: error instanceof Error ? error.message : String(error),
          },
        ],
      }));
      if (!loaded.ok) {
        const [first] = loaded.problems;
        const more = loaded.problems.length > 1 ? ` (and ${loaded.problems.length - 1} more)` : '';
        logger.error(
          { problems: loaded.problems.map(formatProblem), schedules: 'unchanged' },
          `export definitions not reloaded, the schedules in force are kept: ${first === undefined ? 'invalid' : formatProblem(first)}${more}`,
        );
        return false;
      }
      try {
        smtpRule(loaded.definitions);
      } catch (error) {
        const reason = error instanceof ConfigError ? error.message : String(error);
        logger.error(
          { schedules: 'unchanged' },
          `export definitions not reloaded, the schedules in force are kept: ${reason}`,
        );
        return false;
      }
      try {
        const reconciled = await reconcile(loaded.definitions);
        definitions = loaded.definitions;
        logger.info(
          {
            definitions: definitionsSource(definitions),
            schedules: reconciled.upserted,
            schedulesRemoved: reconciled.removed,
          },
          'export definitions reloaded',
        );
        return true;
      } catch (error) {
        logger.error({ err: error }, 'export definitions not reloaded: the schedules could not be written');
        return false;
      }
    });
    return reloading;
  };

  let stopping: Promise<boolean> | undefined;
  let cutGraceShort: (() => void) | undefined;
  const stop = (reason: string): Promise<boolean> => {
    if (stopping !== undefined) {
      cutGraceShort?.();
      return stopping;
    }
    stopping = (async () => {
      logger.info(
        { reason, graceMs: queueConfig.shutdownGraceMs },
        'stopping: no new jobs; running exports may finish within the grace period',
      );
      let handBackTimer: NodeJS.Timeout | undefined;
      const abortRunning = (): void => {
        cutGraceShort = undefined;
        clearTimeout(graceTimer);
        logger.warn('aborting running exports and handing them back to the queue');
        worker.cancelAllJobs(SHUTDOWN_REASON);
      };
      const graceTimer = setTimeout(abortRunning, queueConfig.shutdownGraceMs);
      cutGraceShort = abortRunning;
      const closed = worker.close().then(() => true);
      // With no job running there is nothing to hand back: only the grace period, so that a worker
      // whose Redis is down (close() then waits for a blocking command that never returns) still
      // stops in time.
      const giveUpAfter =
        running === 0 ? queueConfig.shutdownGraceMs : queueConfig.shutdownGraceMs + HAND_BACK_TIMEOUT_MS;
      const gaveUp = new Promise<false>((resolve) => {
        handBackTimer = setTimeout(() => resolve(false), giveUpAfter);
      });
      const inTime = await Promise.race([closed, gaveUp]);
      clearTimeout(graceTimer);
      clearTimeout(handBackTimer);
      if (!inTime) {
        logger.error(
          running === 0
            ? 'the worker did not close in time (is Redis reachable?); stopping anyway'
            : 'running jobs did not stop in time; their locks will expire and other workers will take them',
        );
      }
      await settleWithin(
        Promise.all([
          inTime ? undefined : worker.close(true),
          queue.close(),
          notifications?.worker.close(),
          notifications?.queue.close(),
        ]),
        CLOSE_STEP_TIMEOUT_MS,
      );
      await closeRedis(connection);
      logger.info('worker stopped');
      return inTime;
    })();
    return stopping;
  };

  return {
    worker,
    queue,
    notifyWorker: notifications?.worker,
    definitions: currentDefinitions,
    reloadDefinitions,
    stop,
  };
}

/** What the log says of a set of definitions: where they came from and their names. */
function definitionsSource(set: ExportDefinitions): {
  readonly file: string | null;
  readonly names: string[];
} {
  return {
    file: set.source.kind === 'file' ? set.source.file : null,
    names: set.definitions.map((d) => d.name),
  };
}

interface Notifications {
  readonly events: JobNotifications;
  readonly queue: Queue;
  readonly worker: Worker;
  /** What the start line shows of the receivers: scheme and host. */
  readonly targets: readonly string[];
}

/**
 * The notification queue and its worker on the same connection and prefix, when NOTIFY_WEBHOOK_URL
 * names receivers. Deliveries have a worker of their own so a slow receiver never holds an export
 * slot, and a stopped export worker does not strand them: they wait in Redis for the next worker.
 */
function startNotifications(
  options: ExportWorkerOptions,
  delivery: DefinitionDelivery,
): Notifications | undefined {
  const { connection, queueConfig, tuning, logger } = options;
  const config = options.notify?.config;
  const smtp = options.notify?.smtp;
  const mailOn = smtp?.server !== undefined;
  // An EXPORTS_FILE may give a definition webhooks of its own, now or after a SIGHUP.
  const fromFile = options.definitions.initial.source.kind === 'file';
  if (config === undefined || (config.webhookUrls.length === 0 && !mailOn && !fromFile)) return undefined;
  const targets = webhookTargets(config.webhookUrls);
  const queue = openNotificationQueue(connection, {
    prefix: queueConfig.prefix,
    attempts: config.attempts,
    backoffMs: config.backoffMs,
  });
  queue.on('error', (error) => logger.warn({ err: error }, 'notification queue error'));
  // An event of a definition goes to NOTIFY_WEBHOOK_URL and to the definition's own webhooks.
  const targetsOf = (definition: string | undefined): readonly WebhookTarget[] =>
    withTargets(targets, delivery.webhooksOf(definition));
  const notifier = new QueuedNotifier(queue, targetsOf, logger);
  const metrics = { redis: connection, prefix: queueConfig.prefix };
  const webhook = createNotifyProcessor({
    config,
    targets: () => withTargets(targets, delivery.allWebhooks()),
    s3Config: options.s3Config,
    logger,
    metrics,
  });
  const sender = smtp?.server === undefined ? undefined : smtpSender(smtp.server);
  const mail =
    smtp === undefined || sender === undefined
      ? undefined
      : createDeliverMailProcessor({
          smtp,
          sender,
          notifyConfig: config,
          s3Config: options.s3Config,
          wfm: options.wfm,
          redis: connection,
          prefix: queueConfig.prefix,
          raise: (event) => notifier.notify(event),
          logger,
        });
  const processor = async (job: Job): Promise<unknown> => {
    if (job.name === MAIL_JOB_NAME) {
      if (mail === undefined)
        throw new UnrecoverableError('MAIL_SEND: SMTP_URL is not set on this worker; the e-mail is not sent');
      return mail(job);
    }
    if (job.name === NOTIFY_JOB_NAME) return webhook(job);
    throw new UnrecoverableError(`unknown notification job name "${job.name}"`);
  };
  const worker = new Worker(NOTIFY_QUEUE_NAME, processor, {
    connection,
    prefix: queueConfig.prefix,
    concurrency: NOTIFY_CONCURRENCY,
    lockDuration: tuning.lockDurationMs,
    stalledInterval: tuning.stalledIntervalMs,
    settings: { backoffStrategy },
    name: `${hostname()}-${process.pid}-notify`,
    autorun: false,
  });
  worker.on('error', (error) => logger.error({ err: error }, 'notification worker error'));
  worker.on('closed', () => sender?.close());
  const mailSettingsOf = options.notify?.mailSettingsOf ?? delivery.mailSettingsOf;
  const events = jobNotifications({
    notifier,
    exportConfig: options.exportConfig,
    knownSecrets: options.notify?.knownSecrets ?? [],
    logger,
    ...(mailOn ? { mail: { queue, settingsOf: mailSettingsOf } } : {}),
  });
  return {
    events,
    queue,
    worker,
    targets: [...targets.map((t) => t.shown), ...(smtp?.server === undefined ? [] : [smtp.server.shown])],
  };
}

/** `base` and the receivers of `urls` not already among them (one URL, one delivery). */
function withTargets(base: readonly WebhookTarget[], urls: readonly string[]): readonly WebhookTarget[] {
  if (urls.length === 0) return base;
  const keys = new Set(base.map((t) => t.key));
  const more = webhookTargets(urls).filter((t) => !keys.has(t.key) && keys.add(t.key));
  return more.length === 0 ? base : [...base, ...more];
}
