// The names the queue's producers and workers agree on. Changing one strands the jobs already in
// Redis under the old name, so they are declared once, here.

/** The one queue of shift-export. Its keys live under QUEUE_PREFIX (a Redis Cluster hash tag). */
export const EXPORT_QUEUE_NAME = 'shift-exports';

/** Job names: what a job does. One processor per name, in jobs/. */
export const JOB_NAMES = {
  /** Export one period (jobs/export-period.ts). */
  exportPeriod: 'export-period',
  /**
   * The legacy nightly run (jobs/nightly.ts): its scheduler is gone, replaced by the nightly
   * definition's `export:nightly`; kept so that a job of it still in Redis after an upgrade runs.
   */
  nightly: 'nightly',
  /** A scheduled run of an export definition: enqueue its period's exports (jobs/scheduled-export.ts). */
  scheduledExport: 'scheduled-export',
  /** The parent of a backfill flow: index the days' manifests (jobs/backfill.ts). */
  backfill: 'backfill',
} as const;

/**
 * Id of the Job Scheduler of an export definition: `export:<name>`. Workers remove the `export:`
 * schedulers of definitions not in their file, and no other.
 */
export const DEFINITION_SCHEDULER_PREFIX = 'export:';

export function definitionSchedulerId(name: string): string {
  return `${DEFINITION_SCHEDULER_PREFIX}${name}`;
}

/** Id of the nightly Job Scheduler before export definitions: removed by every worker that starts. */
export const LEGACY_NIGHTLY_SCHEDULER_ID = 'nightly-export';

/**
 * The queue of webhook deliveries (src/notify/), beside the export queue under the same
 * QUEUE_PREFIX hash tag: a slow or failing receiver retries there without holding an export slot.
 */
export const NOTIFY_QUEUE_NAME = 'shift-export-notifications';

/** The one job name of NOTIFY_QUEUE_NAME: POST one event to one webhook URL (jobs/notify.ts). */
export const NOTIFY_JOB_NAME = 'webhook';

/**
 * The job name of NOTIFY_QUEUE_NAME that sends the e-mail of one published export of a definition
 * with `deliver.email` (jobs/deliver-mail.ts).
 */
export const MAIL_JOB_NAME = 'email';
