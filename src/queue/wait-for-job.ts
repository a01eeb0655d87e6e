// Waits for a job to finish, reporting its progress events on the way: what `enqueue --wait` and
// `backfill --wait` do. The job's `completed` and `failed` events usually end the wait, but not
// alone: the job is also looked up at once (it may have finished before we listened) and then now
// and then, and
// - a job found finished ends the wait with that outcome, whether or not its event was heard. An
//   event can fail to arrive: the events connection (its own connection, blocking on the stream)
//   may be stuck after a failover or a network fault while the job completes on the new primary,
//   and nothing else would ever end the wait.
// - a job missing twice in a row ends the wait with JobLostError: a failover loses the newest
//   writes (replication is asynchronous), and a job that is gone sends no event ever again.
// Not job.waitUntilFinished(): its own look-up runs inside a promise executor, so when Redis is
// away its error escapes the wait as an unhandled rejection, and it first waits for the events
// connection to be ready, which may never come. Here a look-up that Redis does not answer proves
// nothing, and the caller's outage watch says when Redis is gone.

import type { Queue, QueueEvents } from 'bullmq';
import { ShiftExportError } from '../errors.js';
import { progressSchema, type JobProgressView } from './job-view.js';

export type JobOutcome =
  | { readonly state: 'completed'; readonly returnValue: unknown }
  | { readonly state: 'failed'; readonly reason: string };

/** How often a waiting command looks its job up (default). */
export const JOB_CHECK_MS = 5000;

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

/**
 * Resolves with how the job ended, heard as an event or found on a look-up, whichever comes first;
 * rejects with JobLostError when the job vanishes meanwhile.
 */
export async function waitForJob(
  queue: Queue,
  events: QueueEvents,
  jobId: string,
  onProgress: (progress: JobProgressView) => void = () => undefined,
  /** How often to look the job up. */
  checkMs: number = JOB_CHECK_MS,
): Promise<JobOutcome> {
  const job = await queue.getJob(jobId);
  if (job === undefined) return { state: 'failed', reason: `job ${jobId} does not exist (removed?)` };
  const listener = ({ jobId: id, data }: { jobId: string; data: unknown }): void => {
    if (id !== jobId) return;
    const parsed = progressSchema.safeParse(data);
    if (parsed.success) onProgress(parsed.data);
  };
  let heard: (outcome: JobOutcome) => void = () => undefined;
  const finished = new Promise<JobOutcome>((resolve) => (heard = resolve));
  const onCompleted = ({ jobId: id, returnvalue }: { jobId: string; returnvalue: unknown }): void => {
    if (id === jobId) heard({ state: 'completed', returnValue: returnvalue });
  };
  const onFailed = ({ jobId: id, failedReason }: { jobId: string; failedReason: string }): void => {
    if (id === jobId) heard({ state: 'failed', reason: failedReason });
  };
  events.on('progress', listener);
  events.on('completed', onCompleted);
  events.on('failed', onFailed);
  // Listening first, then the first look-up: a job that finished before is found, one that
  // finishes after is heard.
  const lookups = watchJob(queue, jobId, checkMs);
  try {
    return await Promise.race([finished, lookups.outcome]);
  } finally {
    lookups.stop();
    events.off('progress', listener);
    events.off('completed', onCompleted);
    events.off('failed', onFailed);
  }
}

/**
 * Looks the job up at once and then every `intervalMs`: `outcome` resolves once it is found completed or failed,
 * and rejects once it was missing twice in a row (once could be a job that just finished and was
 * removed while its event is on the way). A look-up that fails (Redis away) proves nothing: the
 * caller's outage watch covers that.
 */
function watchJob(
  queue: Queue,
  jobId: string,
  intervalMs: number,
): { readonly outcome: Promise<JobOutcome>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let misses = 0;
  const outcome = new Promise<JobOutcome>((resolve, reject) => {
    const check = async (): Promise<void> => {
      const found = await lookUp(queue, jobId).catch(() => 'unanswered' as const);
      if (stopped) return;
      if (found === 'unanswered') return schedule();
      misses = found === 'missing' ? misses + 1 : 0;
      if (misses >= 2) reject(new JobLostError(jobId));
      else if (found === 'missing' || found === 'unfinished') schedule();
      else resolve(found);
    };
    // A watchdog keeps nothing alive: when the caller stops waiting another way (Redis lost, the
    // command ends) while this wait is still pending, the process must still be able to exit.
    const schedule = (): void => {
      timer = setTimeout(() => void check(), intervalMs);
      timer.unref();
    };
    void check();
  });
  // Nobody may be listening when the wait ends another way.
  outcome.catch(() => undefined);
  return {
    outcome,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Where the job is now: finished (with its outcome), still to finish, or gone. */
async function lookUp(queue: Queue, jobId: string): Promise<JobOutcome | 'unfinished' | 'missing'> {
  // The state first: once it says finished, the job's hash holds the return value or the reason
  // (BullMQ writes them in one script with the move).
  const state = await queue.getJobState(jobId);
  if (state === 'unknown') return 'missing';
  if (state !== 'completed' && state !== 'failed') return 'unfinished';
  const job = await queue.getJob(jobId);
  if (job === undefined) return 'missing';
  return state === 'completed'
    ? { state: 'completed', returnValue: job.returnvalue }
    : { state: 'failed', reason: job.failedReason };
}
