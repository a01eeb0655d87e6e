// One job as `status` and the API show it: id, kind, state, period, progress, attempts, failure
// reason, times, and the export summary when it completed. Built from what BullMQ stores; job data
// and return values are read through their schemas, so a malformed old job shows as such instead of
// breaking the listing.

import type { Job, JobState } from 'bullmq';
import { z } from 'zod';
import { exportJobDataSchema } from './export-job-data.js';
import { readExportJobResult, type ExportJobResult } from './export-job-result.js';

export const progressSchema = z.object({
  phase: z.string(),
  rows: z.number(),
  exported: z.number().optional(),
  rejected: z.number().optional(),
  /** The attempt that wrote it (BullMQ's attemptsStarted then): an older attempt's is not shown. */
  attempt: z.number().optional(),
});

export type JobProgressView = z.infer<typeof progressSchema>;

export interface JobView {
  readonly id: string;
  readonly name: string;
  readonly state: JobState | 'unknown';
  readonly period: { readonly from: string; readonly to: string } | null;
  readonly formats: readonly string[];
  /** The job's destination; null: the worker's EXPORT_DEST. */
  readonly dest: string | null;
  /** The export definition whose run queued it; null: an export asked for by its period. */
  readonly export: string | null;
  readonly progress: JobProgressView | null;
  /** Attempts used up (failed); a job handed back to the queue or stalled used none. */
  readonly attempts_made: number;
  readonly attempts_max: number;
  /** While active: which of attempts_max runs now (attempts_made + 1); null otherwise. */
  readonly attempt_running: number | null;
  /** How often a worker took the job, counting runs that were handed back or stalled. */
  readonly attempts_started: number;
  readonly failed_reason: string | null;
  readonly created_at: string;
  /** When the running attempt started (while active), or the last one (once finished). */
  readonly started_at: string | null;
  readonly finished_at: string | null;
  /** The export summary of a completed export job. */
  readonly result: ExportJobResult | null;
  /** Any other return value (the nightly run's job ids, a backfill's index). */
  readonly return_value: unknown;
}

function iso(ms: number | undefined): string | null {
  return ms === undefined || ms === null || !Number.isFinite(ms) || ms <= 0
    ? null
    : new Date(ms).toISOString();
}

/** Waiting for a worker: the start and progress a job still holds are of an attempt that ended. */
const NOT_RUNNING: ReadonlySet<string> = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

export function jobView(job: Job, state: JobState | 'unknown'): JobView {
  const data = exportJobDataSchema.safeParse(job.data);
  const parsed = progressSchema.safeParse(job.progress);
  const started = job.attemptsStarted ?? 0;
  // A job handed back to the queue (or stalled) keeps the progress of the run that ended until the
  // next run writes its own: show only the progress of the attempt that is running now.
  const progress =
    parsed.success &&
    !NOT_RUNNING.has(state) &&
    (parsed.data.attempt === undefined || parsed.data.attempt === started)
      ? parsed.data
      : null;
  const result = state === 'completed' ? readExportJobResult(job.returnvalue) : undefined;
  return {
    id: job.id ?? '?',
    name: job.name,
    state,
    period: data.success ? { from: data.data.from, to: data.data.to } : null,
    formats: data.success ? data.data.formats : [],
    dest: data.success ? (data.data.dest ?? null) : null,
    export: data.success ? (data.data.export ?? null) : null,
    progress,
    attempts_made: job.attemptsMade,
    attempts_max: job.opts.attempts ?? 1,
    attempt_running: state === 'active' ? job.attemptsMade + 1 : null,
    attempts_started: started,
    // Also while a failed attempt waits for its retry (delayed); a later success clears it.
    failed_reason:
      state !== 'completed' && job.failedReason !== undefined && job.failedReason !== ''
        ? job.failedReason
        : null,
    created_at: iso(job.timestamp) ?? new Date(0).toISOString(),
    started_at: NOT_RUNNING.has(state) ? null : iso(job.processedOn),
    finished_at: state === 'completed' || state === 'failed' ? iso(job.finishedOn) : null,
    result: result ?? null,
    return_value: result === undefined && state === 'completed' ? (job.returnvalue ?? null) : null,
  };
}

/** Loads a job and its state; undefined when there is no such job. */
export async function loadJobView(
  queue: { getJob(id: string): Promise<Job | undefined> },
  id: string,
): Promise<JobView | undefined> {
  const job = await queue.getJob(id);
  if (job === undefined) return undefined;
  return jobView(job, await job.getState());
}
