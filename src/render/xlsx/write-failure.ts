// The first error of a workbook being written, wherever it came from (the destination stream, the
// archive, the temp file), so that every wait of the writer ends with it instead of hanging: a
// broken destination never emits 'drain' again.

import type { Writable } from 'node:stream';
import { XlsxWriteError } from './xlsx-write-error.js';

export class WriteFailure {
  private readonly controller = new AbortController();
  private failure: Error | undefined;
  private watching = true;

  /** Aborted on the first failure: pass it to events.once so waits end with it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure =
      error instanceof Error
        ? error
        : new XlsxWriteError(`the workbook could not be written: ${String(error)}`, error);
    this.controller.abort(this.failure);
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** After an abort or a wait cut short by the signal: the failure, not the AbortError. */
  rethrow(error: unknown): never {
    throw this.failure ?? error;
  }

  /** Settles like `promise`, or rejects with the failure as soon as there is one. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const signal = this.controller.signal;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(this.failure);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Fails on the sink's error, and on a close that comes before the workbook is complete. */
  watch(sink: Writable): void {
    sink.on('error', (error) => this.fail(error));
    sink.on('close', () => {
      if (this.watching && !sink.writableFinished)
        this.fail(new XlsxWriteError('the destination stream closed before the workbook was complete'));
    });
  }

  /** The workbook is complete (or abandoned on purpose): a later close is not a failure. */
  stopWatching(): void {
    this.watching = false;
  }
}
