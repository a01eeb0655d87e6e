// The processor of `webhook` jobs on the queue `shift-export-notifications`: POST one event to one
// receiver. The receiver is looked up by its key in this worker's NOTIFY_WEBHOOK_URL and the
// `deliver.webhook` URLs of the definitions in force (the job never held the URL); S3 file links are signed now, so they are fresh even on a late retry. A 2xx
// completes the job — and since the job id is the event's and the receiver's, the event is never
// queued for that receiver again. Network errors, timeouts, 408, 429 and 5xx are retried with the
// queue's backoff; another 4xx, or a receiver no longer configured, abandons the event at once.
// Every outcome is a log line and a /metrics counter.

import { UnrecoverableError, type Job } from 'bullmq';
import type { RedisClient } from '../src/queue/redis-connection.js';
import type { NotifyConfig } from '../src/config/notify-config.js';
import type { S3Config } from '../src/config/s3-config.js';
import { describeError, isShiftExportError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { withFileLinks } from '../src/notify/file-links.js';
import { notificationJobDataSchema } from '../src/notify/notification-queue.js';
import type { NotifyEvent } from '../src/notify/notify-event.js';
import { postWebhook } from '../src/notify/post-webhook.js';
import type { WebhookTarget } from '../src/notify/webhook-target.js';
import { parseJobData } from '../src/queue/export-job-data.js';
import { recordNotificationOutcome, type NotificationOutcome } from '../src/queue/export-metrics.js';
import { toJobFailure } from '../src/queue/job-failure.js';

export interface NotifyDeps {
  readonly config: NotifyConfig;
  /** The receivers a job may name: NOTIFY_WEBHOOK_URL's and the definitions' in force now. */
  readonly targets: readonly WebhookTarget[] | (() => readonly WebhookTarget[]);
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  readonly metrics?: { readonly redis: RedisClient; readonly prefix: string };
}

export interface NotifyJobResult {
  readonly event: string;
  readonly event_id: string;
  readonly target: string;
  readonly status: number;
}

export function createNotifyProcessor(deps: NotifyDeps): (job: Job) => Promise<NotifyJobResult> {
  const targetsNow =
    typeof deps.targets === 'function' ? deps.targets : () => deps.targets as readonly WebhookTarget[];
  const count = async (outcomes: NotificationOutcome[]): Promise<void> => {
    if (deps.metrics === undefined) return;
    await recordNotificationOutcome(deps.metrics.redis, deps.metrics.prefix, outcomes).catch(
      (error: unknown) => deps.logger.warn({ err: error }, 'could not record notification metrics'),
    );
  };
  return async (job) => {
    const attempt = job.attemptsMade + 1;
    const data = parseJobData(notificationJobDataSchema, job.data, 'notification');
    // Parsed by its schema's essentials; the rest was built by this code before it was stored.
    const stored = data.event as unknown as NotifyEvent;
    const log = deps.logger.child({ jobId: job.id, event: stored.event, eventId: stored.id, attempt });
    const target = targetsNow().find((t) => t.key === data.target);
    if (target === undefined) {
      await count(['abandoned']);
      log.error(
        { target: data.target },
        "notification abandoned: its URL is no longer in NOTIFY_WEBHOOK_URL or a definition's deliver.webhook",
      );
      throw new UnrecoverableError(
        `NOTIFY_DELIVERY_FAILED: the receiver ${data.target} is no longer in NOTIFY_WEBHOOK_URL or a definition's deliver.webhook`,
      );
    }
    const event =
      data.linkDest === undefined
        ? stored
        : await withFileLinks(stored, {
            dest: data.linkDest,
            s3Config: deps.s3Config,
            expiresSeconds: deps.config.linkExpiresSeconds,
            logger: log,
          });
    try {
      const status = await postWebhook(target, event, {
        secret: deps.config.secret,
        timeoutMs: deps.config.timeoutMs,
      });
      await count(['delivered']);
      log.info({ target: target.shown, status }, 'notification delivered');
      return { event: event.event, event_id: event.id, target: target.shown, status };
    } catch (error) {
      const retryable = isShiftExportError(error) && error.retryable;
      const last = !retryable || attempt >= (job.opts.attempts ?? 1);
      await count(last ? ['attempt_failed', 'abandoned'] : ['attempt_failed']);
      const fields = { target: target.shown, reason: describeError(error) };
      if (last) log.error(fields, 'notification abandoned');
      else log.warn(fields, 'notification attempt failed; it is retried');
      throw toJobFailure(error);
    }
  };
}
