// One run of an export job. An export job's id is the same for every request of its period
// (export-job-id.ts), and a re-run re-queues that job (enqueue-export.ts): so a run is named by the
// job's id and when it was queued, or last queued again (`rerun` in its data, set by the re-run).
// Every attempt of one run has the same name — a retry after a failure, and the attempt that takes
// the job over after its worker died — so what a run does once (its e-mail) is keyed by it.

import type { Job } from 'bullmq';
import { exportJobDataSchema } from './export-job-data.js';

export function exportRunOf(job: Pick<Job, 'id' | 'timestamp' | 'data'>): string {
  return `${job.id ?? ''}@${runQueuedAt(job)}`;
}

/** When the job's run was queued (ms since the epoch): when it was added, or last queued again. */
export function runQueuedAt(job: Pick<Job, 'timestamp' | 'data'>): number {
  const data = exportJobDataSchema.safeParse(job.data);
  return (data.success ? data.data.rerun : undefined) ?? job.timestamp;
}
