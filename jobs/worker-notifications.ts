// The notification side of a worker: the queue `shift-export-notifications` and a BullMQ Worker
// on it that delivers webhooks (notify.ts) and, with SMTP_URL, the definitions' e-mail
// (deliver-mail.ts). Deliveries have a worker of their own so a slow receiver never holds an export
// slot, and a stopped export worker does not strand them: they wait in Redis for the next worker.

import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import { MAIL_JOB_NAME, NOTIFY_JOB_NAME, NOTIFY_QUEUE_NAME } from '../src/queue/queue-names.js';
import { smtpSender } from '../src/notify/smtp-sender.js';
import { openNotificationQueue, QueuedNotifier } from '../src/notify/notification-queue.js';
import { webhookTargets, type WebhookTarget } from '../src/notify/webhook-target.js';
import { backoffStrategy } from '../src/queue/retry-backoff.js';
import { createNotifyProcessor } from './notify.js';
import { createDeliverMailProcessor } from './deliver-mail.js';
import type { DefinitionDelivery } from './definition-delivery.js';
import { jobNotifications, type JobNotifications } from './job-notifications.js';
import type { ExportWorkerOptions } from './worker-options.js';

/** Webhook deliveries one worker process runs at once (each waits at most NOTIFY_TIMEOUT_MS). */
export const NOTIFY_CONCURRENCY = 4;

export interface Notifications {
  readonly events: JobNotifications;
  readonly queue: Queue;
  readonly worker: Worker;
  /** What the start line shows of the receivers: scheme and host. */
  readonly targets: readonly string[];
}

/**
 * The notification queue and its worker on the same connection and prefix, when NOTIFY_WEBHOOK_URL
 * names receivers, SMTP_URL is set, or the definitions come from a file (which may name webhooks).
 */
export function startNotifications(
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
