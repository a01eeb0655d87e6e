// Waits for a job to finish, reporting its progress events on the way: what `enqueue --wait` and
// `backfill --wait` do. Built on QueueEvents and job.waitUntilFinished, which also covers a job
// that finished before we started listening. A job that disappears from Redis while we wait (a
// failover loses the newest writes: replication is asynchronous) sends no event ever again, so the
// job is also looked up now and then, and a job missing twice in a row ends the wait.

import type { Queue, QueueEvents } from 'bullmq';
import { ShiftExportError } from '../errors.js';
import { progressSchema, type JobProgressView } from './job-view.js';

export type JobOutcome =
  | { readonly state: 'completed'; readonly returnValue: unknown }
  | { readonly state: 'failed'; readonly reason: string };

/** How often a waiting command checks that its job still exists (default). */
export const JOB_PRESENCE_CHECK_MS = 5000;

/** The job we wait for is gone from Redis. Retryable: asking again queues it again. */
export class JobLostError extends ShiftExportError {
  constructor(jobId: string) {
    super(
      'JOB_LOST',
      `job ${jobId} is no longer in Redis (a Redis failover can lose the newest writes, or it was removed): ` +
        'ask for the export again; the same request never runs an export twice',
      { retryable: true, details: { jobId } },
    );
  }
}

/** Resolves with how the job ended; rejects with JobLostError when it vanishes meanwhile. */
export async function waitForJob(
  queue: Queue,
  events: QueueEvents,
  jobId: string,
  onProgress: (progress: JobProgressView) => void = () => undefined,
  /** How often to check that the job still exists. */
  presenceCheckMs: number = JOB_PRESENCE_CHECK_MS,
): Promise<JobOutcome> {
  const job = await queue.getJob(jobId);
  if (job === undefined) return { state: 'failed', reason: `job ${jobId} does not exist (removed?)` };
  const listener = ({ jobId: id, data }: { jobId: string; data: unknown }): void => {
    if (id !== jobId) return;
    const parsed = progressSchema.safeParse(data);
    if (parsed.success) onProgress(parsed.data);
  };
  events.on('progress', listener);
  const presence = watchPresence(queue, jobId, presenceCheckMs);
  try {
    const finished = job.waitUntilFinished(events).then(
      (returnValue: unknown): JobOutcome => ({ state: 'completed', returnValue }),
      (error: unknown): JobOutcome => ({
        state: 'failed',
        reason: error instanceof Error ? error.message : String(error),
      }),
    );
    return await Promise.race([finished, presence.lost]);
  } finally {
    presence.stop();
    events.off('progress', listener);
  }
}

/**
 * Looks the job up every `intervalMs`; `lost` rejects once it was missing twice in a row (once
 * could be a job that just finished and was removed while its event is on the way). A lookup that
 * fails (Redis away) proves nothing: the caller's outage watch covers that.
 */
function watchPresence(
  queue: Queue,
  jobId: string,
  intervalMs: number,
): { readonly lost: Promise<never>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let misses = 0;
  const lost = new Promise<never>((_, reject) => {
    const check = async (): Promise<void> => {
      const job = await queue.getJob(jobId).catch(() => null);
      if (stopped) return;
      misses = job === undefined ? misses + 1 : 0;
      if (misses >= 2) reject(new JobLostError(jobId));
      else schedule();
    };
    // A watchdog keeps nothing alive: when the caller stops waiting another way (Redis lost, the
    // command ends) while this wait is still pending, the process must still be able to exit.
    const schedule = (): void => {
      timer = setTimeout(() => void check(), intervalMs);
      timer.unref();
    };
    schedule();
  });
  // Nobody may be listening when the wait ends another way.
  lost.catch(() => undefined);
  return {
    lost,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
