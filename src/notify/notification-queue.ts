// Notifications as the worker sends them: one BullMQ job per event and receiver on the queue
// `shift-export-notifications`, under the export queue's QUEUE_PREFIX hash tag, retried with the
// jittered backoff (NOTIFY_ATTEMPTS, NOTIFY_BACKOFF_MS). The job id is the event's id and the
// receiver's key, so an event handed over twice (a retried hook) is one job, and one receiver that
// already answered 2xx is never sent the event again because another one keeps failing. The job
// holds the event and the receiver's key, never its URL (the URL may carry a secret).
// Handing an event over never fails or delays the export: it is bounded and only logged.

import { Queue } from 'bullmq';
import type { RedisClient } from '../queue/redis-connection.js';
import { z } from 'zod';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { NOTIFY_JOB_NAME, NOTIFY_QUEUE_NAME } from '../queue/queue-names.js';
import { jobBackoff } from '../queue/retry-backoff.js';
import { settleWithin } from '../settle-within.js';
import { notifyEventSchema, type NotifyEvent } from './notify-event.js';
import type { WebhookTarget } from './webhook-target.js';

/** Delivered and abandoned notification jobs are kept this long: the memory behind "sent once". */
export const KEEP_NOTIFICATIONS = { age: 7 * 24 * 3600, count: 10_000 } as const;

/** Longest time the export's processor waits for the events to be handed to the queue. */
export const ENQUEUE_TIMEOUT_MS = 2_000;

export const notificationJobDataSchema = z.strictObject({
  /** WebhookTarget.key of the receiver. */
  target: z.string().regex(/^[0-9a-f]{12}$/),
  event: notifyEventSchema,
  /** The export's destination root, when the event's S3 file links are signed at delivery. */
  linkDest: z.string().min(1).max(1024).optional(),
});

export type NotificationJobData = z.infer<typeof notificationJobDataSchema>;

export interface NotificationQueueSettings {
  readonly prefix: string;
  readonly attempts: number;
  readonly backoffMs: number;
}

export function openNotificationQueue(connection: RedisClient, settings: NotificationQueueSettings): Queue {
  return new Queue(NOTIFY_QUEUE_NAME, {
    connection,
    prefix: settings.prefix,
    defaultJobOptions: {
      attempts: settings.attempts,
      backoff: jobBackoff(settings.backoffMs),
      removeOnComplete: KEEP_NOTIFICATIONS,
      removeOnFail: KEEP_NOTIFICATIONS,
    },
  });
}

export function notificationJobId(eventId: string, targetKey: string): string {
  return `${eventId}.${targetKey}`;
}

/**
 * The receivers of an event: a fixed list, or the receivers of the export definition the event
 * names (NOTIFY_WEBHOOK_URL and the definition's own `deliver.webhook`).
 */
export type NotifyTargets =
  readonly WebhookTarget[] | ((definition: string | undefined) => readonly WebhookTarget[]);

/** The export definition an event names, if any. */
export function eventDefinition(event: NotifyEvent): string | undefined {
  return 'definition' in event ? event.definition : undefined;
}

/** Hands events to the notification queue, one job per receiver. */
export class QueuedNotifier {
  readonly #queue: Queue;
  readonly #targets: NotifyTargets;
  readonly #logger: Logger;

  constructor(queue: Queue, targets: NotifyTargets, logger: Logger) {
    this.#queue = queue;
    this.#targets = targets;
    this.#logger = logger;
  }

  /** Queues `event` for every receiver; waits at most ENQUEUE_TIMEOUT_MS and never throws. */
  async notify(event: NotifyEvent, linkDest?: string): Promise<void> {
    const targets =
      typeof this.#targets === 'function' ? this.#targets(eventDefinition(event)) : this.#targets;
    if (targets.length === 0) return;
    const add = Promise.all(
      targets.map((target) => {
        // Stored as built; read back through notificationJobDataSchema.
        const data = {
          target: target.key,
          event,
          ...(linkDest === undefined ? {} : { linkDest }),
        };
        return this.#queue.add(NOTIFY_JOB_NAME, data, { jobId: notificationJobId(event.id, target.key) });
      }),
    ).then(
      () => this.#logger.info({ event: event.event, eventId: event.id }, 'notification queued'),
      (error: unknown) =>
        this.#logger.error(
          { event: event.event, eventId: event.id, reason: describeError(error) },
          'could not queue a notification; it is not sent',
        ),
    );
    await settleWithin(add, ENQUEUE_TIMEOUT_MS);
  }
}
