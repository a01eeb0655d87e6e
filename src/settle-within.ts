// Bounded waiting for a closing step: BullMQ's close() calls wait for Redis, and wait forever while
// it is unreachable — a stopping process must not.

/** Waits for `promise` at most `ms`; its outcome (or failure) after that is ignored. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    timeout,
  ]);
  clearTimeout(timer);
}
