// Delivery in this process, for `shift-export run`: no queue to hand a retry to, and a cron job
// waiting for the exit. Every receiver is tried in parallel, at most RUN_NOTIFY_ATTEMPTS times with
// a short doubling pause, and all of it ends within RUN_NOTIFY_DEADLINE_MS whatever the receivers
// do. It never throws: the export's outcome (and exit code) is the export's; a receiver that was
// not reached is a warning in the log, not a failed run.

import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, isShiftExportError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { NotifyEvent } from './notify-event.js';
import { postWebhook } from './post-webhook.js';
import type { WebhookTarget } from './webhook-target.js';

/** Attempts per receiver from `run`. */
export const RUN_NOTIFY_ATTEMPTS = 3;
/** Longest time `run` spends notifying after the export ended. */
export const RUN_NOTIFY_DEADLINE_MS = 15_000;
/** Pause before the second attempt; doubles after. */
export const RUN_NOTIFY_FIRST_DELAY_MS = 500;

export interface DeliverNowOptions {
  readonly secret: string | undefined;
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly attempts?: number;
  readonly deadlineMs?: number;
  readonly firstDelayMs?: number;
}

export interface DeliveryReport {
  readonly target: string;
  readonly delivered: boolean;
  readonly attempts: number;
}

export async function deliverNow(
  event: NotifyEvent,
  targets: readonly WebhookTarget[],
  options: DeliverNowOptions,
): Promise<DeliveryReport[]> {
  const deadline = AbortSignal.timeout(options.deadlineMs ?? RUN_NOTIFY_DEADLINE_MS);
  const attempts = options.attempts ?? RUN_NOTIFY_ATTEMPTS;
  const firstDelay = options.firstDelayMs ?? RUN_NOTIFY_FIRST_DELAY_MS;
  const log = options.logger.child({ event: event.event, eventId: event.id });
  return Promise.all(
    targets.map(async (target): Promise<DeliveryReport> => {
      let reason = '';
      for (let attempt = 1; attempt <= attempts; attempt++) {
        try {
          const status = await postWebhook(target, event, {
            secret: options.secret,
            timeoutMs: options.timeoutMs,
            signal: deadline,
          });
          log.info({ target: target.shown, status, attempt }, 'notification delivered');
          return { target: target.shown, delivered: true, attempts: attempt };
        } catch (error) {
          reason = describeError(error);
          const retryable = isShiftExportError(error) && error.retryable;
          log.warn({ target: target.shown, attempt, reason }, 'notification attempt failed');
          if (!retryable || attempt === attempts || deadline.aborted) {
            log.error({ target: target.shown, attempts: attempt, reason }, 'notification not delivered');
            return { target: target.shown, delivered: false, attempts: attempt };
          }
          try {
            await sleep(firstDelay * 2 ** (attempt - 1), undefined, { signal: deadline });
          } catch {
            // The deadline passed while waiting: the next attempt reports it.
          }
        }
      }
      return { target: target.shown, delivered: false, attempts };
    }),
  );
}
