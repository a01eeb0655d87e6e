// When the worker has no job left in its processor, its main thread collects its garbage at once.
// Between exports the main thread allocates little (locks, events, log lines), so V8 would wait
// many jobs before its next full collection: the heap, and with it the process's RSS, rises by
// ~0.1 MB an export until it reaches twice the live heap (--heap-growing-percent=100), and a worker
// that runs for months sits high on that saw. A full collection of the main thread's ~30 MB heap
// takes a few milliseconds, before the job's completion is written: nothing waits on it but the
// job that just ended. It needs node's --expose-gc (the bin's first line and the Docker image's
// ENTRYPOINT give it); without it this does nothing.

/** Collects the main thread's garbage when node exposes gc(); how long it took in ms, or undefined. */
export function collectIdleGarbage(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return undefined;
  const started = performance.now();
  gc();
  return performance.now() - started;
}
