// Turns a stream of progress updates into at most one write per interval: each job.updateProgress
// is a Redis write and a queue event, and an export reports after every batch of rows. The first
// update goes out at once; later ones within the interval are coalesced into one trailing write of
// the latest value. cancel() drops a pending write (the job's result says the rest).

export interface Throttled<T> {
  push(value: T): void;
  cancel(): void;
}

export interface ThrottleClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: ThrottleClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export function throttle<T>(
  send: (value: T) => void,
  intervalMs: number,
  clock: ThrottleClock = systemClock,
): Throttled<T> {
  let lastSent = Number.NEGATIVE_INFINITY;
  let pending: { value: T } | undefined;
  let timer: unknown;
  const flush = (): void => {
    timer = undefined;
    if (pending === undefined) return;
    const { value } = pending;
    pending = undefined;
    lastSent = clock.now();
    send(value);
  };
  return {
    push(value) {
      pending = { value };
      if (timer !== undefined) return;
      const wait = lastSent + intervalMs - clock.now();
      if (wait <= 0) flush();
      else timer = clock.setTimeout(flush, wait);
    },
    cancel() {
      pending = undefined;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
