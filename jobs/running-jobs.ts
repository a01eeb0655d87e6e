// The jobs a worker has in its processor now, and a promise for the moment it has none: what the
// stop waits for (running exports finish, or are handed back), independent of BullMQ's close(),
// which also waits for its own blocking command and can hang on it after a failover.

export class RunningJobs {
  private count = 0;
  private idle: { promise: Promise<void>; resolve: () => void } | undefined;

  get size(): number {
    return this.count;
  }

  enter(): void {
    this.count++;
  }

  /** Returns true when this was the last running job. */
  leave(): boolean {
    this.count--;
    if (this.count > 0) return false;
    this.idle?.resolve();
    this.idle = undefined;
    return true;
  }

  /** Resolves at once with no job running, else when the last one leaves. */
  whenIdle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    if (this.idle === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }
}
