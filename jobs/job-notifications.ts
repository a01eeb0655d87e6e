// Which job outcome is an event, as the worker sees it: an export job that published
// (export.published; a backfill's day jobs excepted — their parent sends one backfill.completed),
// an export job that failed for good (export.failed: its last attempt, or a failure no retry can
// fix; not an attempt that will be retried, not a job handed back at shutdown), and a completed
// backfill. Runs after the processor, outside the export; hands the event to the notification queue
// (bounded, never throws) so a webhook can neither fail nor delay the job.

import type { Job, Queue } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { ExportConfig } from '../src/config/export-config.js';
import { describeError, isShiftExportError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { isLocalDestination } from '../src/notify/file-links.js';
import { queueExportMail } from '../src/notify/mail-job.js';
import { exportRunOf, runQueuedAt } from '../src/queue/export-run.js';
import type { MailSettings } from '../src/notify/mail-recipients.js';
import type { QueuedNotifier } from '../src/notify/notification-queue.js';
import {
  backfillCompletedEvent,
  exportFailedEvent,
  exportPublishedEvent,
  idPart,
  type NotifyEvent,
} from '../src/notify/notify-event.js';
import { redactSecrets } from '../src/redact-secrets.js';
import { exportJobDataSchema } from '../src/queue/export-job-data.js';
import { readExportJobResult } from '../src/queue/export-job-result.js';
import { JOB_NAMES } from '../src/queue/queue-names.js';
import type { BackfillResult } from './backfill.js';
import { definitionNameOf } from './definition-delivery.js';

export interface JobNotificationsDeps {
  readonly notifier: QueuedNotifier;
  readonly exportConfig: ExportConfig;
  /** Values of secret-named variables, scrubbed from failure messages. */
  readonly knownSecrets: readonly string[];
  readonly logger: Logger;
  readonly now?: () => Date;
  /**
   * E-mail delivery: the notification queue, and the `deliver.email` of the definition an export job
   * ran for (undefined: no e-mail). A published export's e-mail is queued beside its event.
   */
  readonly mail?: {
    readonly queue: Queue;
    readonly settingsOf: (
      job: Job,
    ) => { readonly definition: string; readonly email: MailSettings } | undefined;
  };
}

export interface JobNotifications {
  completed(job: Job, value: unknown): Promise<void>;
  failed(job: Job, error: unknown, failure: Error): Promise<void>;
}

/**
 * What makes one run of a job unique, for its event's id: its id and when the run was queued. A
 * failed export asked for again re-runs the same job (enqueue-export.ts), whose timestamp stays:
 * by the timestamp alone, its second failure would have the first one's id, which the notification
 * queue keeps for 7 days and so drops as a repeat.
 */
function occurrence(job: Job): string {
  return idPart(`${job.id ?? 'job'}.${runQueuedAt(job)}`);
}

export function jobNotifications(deps: JobNotificationsDeps): JobNotifications {
  const now = deps.now ?? (() => new Date());
  const destOf = (job: Job): string => {
    const data = exportJobDataSchema.safeParse(job.data);
    return (data.success ? data.data.dest : undefined) ?? deps.exportConfig.dest;
  };
  // Every event of an export names its definition (and so reaches the definition's own webhooks).
  const send = (event: NotifyEvent, linkDest?: string): Promise<void> =>
    deps.notifier.notify(event, linkDest);

  const events: JobNotifications = {
    async completed(job, value) {
      const context = { jobId: job.id ?? null, now: now() };
      if (job.name === JOB_NAMES.exportPeriod) {
        if (job.parentKey !== undefined) return;
        const result = readExportJobResult(value);
        if (result === undefined) return;
        const dest = destOf(job);
        const local = isLocalDestination(dest);
        const definition = definitionNameOf(job);
        await send(exportPublishedEvent(result, { ...context, local, definition }), local ? undefined : dest);
        const mail = deps.mail?.settingsOf(job);
        if (deps.mail !== undefined && mail !== undefined)
          await queueExportMail(
            deps.mail.queue,
            {
              definition: mail.definition,
              email: mail.email,
              exportId: result.export_id,
              exportRun: exportRunOf(job),
              period: result.period,
              dest,
              location: result.location,
            },
            deps.logger,
          );
      } else if (job.name === JOB_NAMES.backfill) {
        const index = value as BackfillResult;
        await send(
          backfillCompletedEvent(
            {
              period: index.period,
              formats: index.formats,
              days: index.days.length,
              totals: index.totals,
              indexLocation: index.index_location,
              durationMs: Math.max(0, context.now.getTime() - job.timestamp),
              occurrence: occurrence(job),
            },
            context,
          ),
        );
      }
    },

    async failed(job, error, failure) {
      if (job.name !== JOB_NAMES.exportPeriod) return;
      const last = failure instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!last) return;
      const data = exportJobDataSchema.safeParse(job.data);
      const at = now();
      const message = isShiftExportError(error)
        ? error.message
        : job.deferredFailure !== undefined
          ? job.deferredFailure
          : describeError(error);
      // A job BullMQ failed itself (stalled too often) has no code of ours.
      const code = isShiftExportError(error)
        ? error.code
        : job.deferredFailure !== undefined
          ? 'JOB_STALLED'
          : 'ERROR';
      await send(
        exportFailedEvent(
          {
            period: data.success ? { from: data.data.from, to: data.data.to } : null,
            code,
            message: redactSecrets(message, deps.knownSecrets),
            // Started attempts: a stalled one counts, though it never failed. (BullMQ has already
            // counted a deferred failure in attemptsMade.)
            attempts:
              job.deferredFailure !== undefined
                ? Math.max(1, job.attemptsStarted)
                : Math.max(job.attemptsStarted, job.attemptsMade + 1),
            durationMs: Math.max(0, at.getTime() - (job.processedOn ?? at.getTime())),
            occurrence: occurrence(job),
          },
          { jobId: job.id ?? null, now: at, definition: data.success ? data.data.export : undefined },
        ),
      );
    },
  };
  // A bug here must not turn a published export into a failed job.
  const guarded =
    <A extends unknown[]>(f: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      try {
        await f(...args);
      } catch (error) {
        deps.logger.error({ reason: describeError(error) }, 'could not build a notification; it is not sent');
      }
    };
  return { completed: guarded(events.completed), failed: guarded(events.failed) };
}
