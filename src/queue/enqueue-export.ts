// Enqueueing with idempotent ids (export-job-id.ts): the same export asked for twice while it is
// waiting, delayed or running is one job; a completed one is re-run only when asked (`force`, or,
// for the nightly re-exports, when it finished before the nightly run began); a failed one is run
// again whenever it is asked for again. Re-running reuses the job id (job.retry), so ids stay
// stable and a concurrent duplicate request finds the re-queued job instead of adding another; the
// re-queued job's data says when (`rerun`), so its run has a name of its own (export-run.ts).

import type { FlowProducer, Job, JobState, Queue } from 'bullmq';
import type { QueueConfig } from '../config/queue-config.js';
import { periodDates, type Period } from '../domain/period.js';
import { ShiftExportError } from '../errors.js';
import { defaultJobOptions } from './export-queue.js';
import { exportJobData, type BackfillJobData, type ExportJobData } from './export-job-data.js';
import { backfillDayJobId, backfillJobId, exportJobId } from './export-job-id.js';
import { EXPORT_QUEUE_NAME, JOB_NAMES } from './queue-names.js';

export interface EnqueueOptions {
  /** Re-run the export even when it completed. */
  readonly force?: boolean;
  /** Re-run a completed job that finished before this time (ms since the epoch). */
  readonly rerunFinishedBefore?: number;
}

export interface EnqueueResult {
  readonly jobId: string;
  /** True when a job was added or re-queued; false when the existing job was returned. */
  readonly created: boolean;
  readonly state: JobState | 'unknown';
}

/** A backfill whose earlier run still has days in progress cannot be replaced yet. */
export class BackfillBusyError extends ShiftExportError {
  constructor(message: string) {
    super('BACKFILL_BUSY', message, { retryable: true });
  }
}

function shouldRerun(job: Job, state: JobState | 'unknown', options: EnqueueOptions): boolean {
  if (state === 'failed') return true;
  if (state !== 'completed') return false;
  if (options.force === true) return true;
  const finishedOn = job.finishedOn;
  return (
    options.rerunFinishedBefore !== undefined &&
    finishedOn !== undefined &&
    finishedOn < options.rerunFinishedBefore
  );
}

let lastTimestamp = 0;

/** Date.now(), but never the same value twice in this process. */
function uniqueTimestamp(): number {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return lastTimestamp;
}

/** Enqueues the export of `data` (see the module comment for what happens to an existing job). */
export async function enqueueExport(
  queue: Queue,
  data: ExportJobData,
  options: EnqueueOptions = {},
): Promise<EnqueueResult> {
  const period: Period = { from: data.from, to: data.to };
  const jobId = exportJobId(period, data.formats, data.dest, data.export);
  const existing = await queue.getJob(jobId);
  if (existing !== undefined) {
    const state = await existing.getState();
    if (!shouldRerun(existing, state, options)) return { jobId, created: false, state };
    try {
      // A new run of the job (export-run.ts): what it does once, it does again.
      await existing.updateData({ ...(existing.data as ExportJobData), rerun: uniqueTimestamp() });
      await existing.retry(state === 'failed' ? 'failed' : 'completed', {
        resetAttemptsMade: true,
        resetAttemptsStarted: true,
      });
      return { jobId, created: true, state: await existing.getState() };
    } catch {
      // Another producer re-queued (or removed) it first: report what is there now.
      const now = await queue.getJob(jobId);
      if (now !== undefined) return { jobId, created: false, state: await now.getState() };
    }
  }
  const added = await queue.add(JOB_NAMES.exportPeriod, data, { jobId, timestamp: uniqueTimestamp() });
  // An add with an id that exists is ignored by BullMQ: tell the two apart by the stored timestamp,
  // unique within this process (a burst of API requests adds many jobs within one millisecond).
  const stored = await queue.getJob(jobId);
  const state = stored === undefined ? 'unknown' : await stored.getState();
  return { jobId, created: stored === undefined || stored.timestamp === added.timestamp, state };
}

export interface BackfillResult extends EnqueueResult {
  /** The child jobs: one export per day. */
  readonly days: readonly { readonly date: string; readonly jobId: string }[];
}

/**
 * Enqueues a backfill: a flow whose parent (jobs/backfill.ts) runs once every day's export (its
 * children) completed, and fails as soon as one day fails (`failParentOnFailure`) instead of
 * waiting forever. Re-running a finished backfill replaces the whole flow.
 */
export async function enqueueBackfill(
  queue: Queue,
  flows: FlowProducer,
  data: BackfillJobData,
  settings: Pick<QueueConfig, 'attempts' | 'backoffMs'>,
  options: EnqueueOptions = {},
): Promise<BackfillResult> {
  const period: Period = { from: data.from, to: data.to };
  const jobId = backfillJobId(period, data.formats, data.dest);
  const days = periodDates(period).map((date) => ({ date, jobId: backfillDayJobId(jobId, date) }));
  const existing = await queue.getJob(jobId);
  if (existing !== undefined) {
    const state = await existing.getState();
    if (!shouldRerun(existing, state, options)) return { jobId, created: false, state, days };
    try {
      await existing.remove({ removeChildren: true });
    } catch (error) {
      throw new BackfillBusyError(
        `backfill ${jobId} cannot be replaced while some of its days are still running (${error instanceof Error ? error.message : String(error)}); try again when they finished`,
      );
    }
  }
  const jobOptions = defaultJobOptions(settings);
  const node = await flows.add({
    name: JOB_NAMES.backfill,
    queueName: EXPORT_QUEUE_NAME,
    data,
    opts: { ...jobOptions, jobId },
    children: days.map(({ date, jobId: childId }) => ({
      name: JOB_NAMES.exportPeriod,
      queueName: EXPORT_QUEUE_NAME,
      data: exportJobData(date, date, data.formats, data.dest),
      opts: { ...jobOptions, jobId: childId, failParentOnFailure: true },
    })),
  });
  const state = await node.job.getState();
  return { jobId, created: true, state, days };
}
