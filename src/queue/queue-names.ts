// The names the queue's producers and workers agree on. Changing one strands the jobs already in
// Redis under the old name, so they are declared once, here.

/** The one queue of shift-export. Its keys live under QUEUE_PREFIX (a Redis Cluster hash tag). */
export const EXPORT_QUEUE_NAME = 'shift-exports';

/** Job names: what a job does. One processor per name, in jobs/. */
export const JOB_NAMES = {
  /** Export one period (jobs/export-period.ts). */
  exportPeriod: 'export-period',
  /** The nightly run: enqueue yesterday and the look-back days (jobs/nightly.ts). */
  nightly: 'nightly',
  /** The parent of a backfill flow: index the days' manifests (jobs/backfill.ts). */
  backfill: 'backfill',
} as const;

export type JobName = (typeof JOB_NAMES)[keyof typeof JOB_NAMES];

/** Id of the nightly Job Scheduler; upserting it again replaces its pattern and zone. */
export const NIGHTLY_SCHEDULER_ID = 'nightly-export';
