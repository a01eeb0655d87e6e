// When a failed export job runs again: exponential backoff from JOB_BACKOFF_MS with "equal jitter"
// (half the delay fixed, half random), so a burst of jobs that failed together against one
// recovering upstream does not come back together, while no retry comes sooner than half its
// step. Capped, because JOB_ATTEMPTS may be large. BullMQ calls the strategy registered on the
// worker for jobs whose backoff type is BACKOFF_TYPE.

export const BACKOFF_TYPE = 'exponential-jitter';

/** No single wait longer than this, whatever the attempt. */
export const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** Delay before the retry that follows attempt `attemptsMade` (1 = the first attempt failed). */
export function retryDelayMs(
  attemptsMade: number,
  baseMs: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** The job's backoff option: the strategy's name and the base delay. */
export function jobBackoff(baseMs: number): { type: string; delay: number } {
  return { type: BACKOFF_TYPE, delay: baseMs };
}

interface JobWithBackoff {
  readonly opts: { readonly backoff?: number | { readonly delay?: number } };
}

/** BullMQ's `settings.backoffStrategy` for workers. */
export function backoffStrategy(
  attemptsMade: number,
  type?: string,
  _error?: Error,
  job?: JobWithBackoff,
): number {
  const backoff = job?.opts.backoff;
  const base = typeof backoff === 'number' ? backoff : (backoff?.delay ?? 0);
  if (type !== undefined && type !== BACKOFF_TYPE) return base;
  return retryDelayMs(attemptsMade, base);
}
