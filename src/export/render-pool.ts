// The threads that render exported shifts beside the export's own (EXPORT_THREADS − 1 of them):
// each takes batches in turn (round robin) and answers them in the order it got them; the export
// awaits each batch's answer in report order (shift-rows-output.ts).
//
// A thread that ends unexpectedly (an uncaught error, out of memory, terminated) fails every
// batch still waiting with a retryable EXPORT_THREAD_FAILED, and the export fails before
// publishing anything; close() ends the threads however the export ended.

import { channel } from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import { ShiftExportError } from '../errors.js';
import type { RenderedShifts, RenderRequest, RenderSetup } from './shift-rendering.js';

/** A render thread ended, or could not render a batch: the export fails, retryably. */
export class RenderThreadFailedError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    super('EXPORT_THREAD_FAILED', message, { retryable: true, cause });
  }
}

/** Published with `{ thread }` when a render thread starts: for diagnostics, and for tests that end one. */
export const renderThreadStarted = channel('shift-export:render-thread-started');

export interface ToRenderThread {
  readonly seq: number;
  readonly request: RenderRequest;
}

export type FromRenderThread =
  | { readonly seq: number; readonly rendered: RenderedShifts }
  | { readonly seq: number; readonly error: string };

interface Waiting {
  readonly resolve: (rendered: RenderedShifts) => void;
  readonly reject: (error: Error) => void;
}

// A render thread holds one batch and its output at a time: a small young generation keeps its
// memory small (a render thread's heap is mostly short-lived strings).
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8 };

class RenderThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #failure: Error | undefined;
  #closing = false;

  constructor(setup: RenderSetup, index: number) {
    this.#worker = new Worker(threadEntry(), { workerData: setup, resourceLimits: RESOURCE_LIMITS });
    if (renderThreadStarted.hasSubscribers) renderThreadStarted.publish({ thread: this.#worker });
    this.#worker.on('message', (answer: FromRenderThread) => {
      const waiting = this.#waiting.get(answer.seq);
      this.#waiting.delete(answer.seq);
      if ('rendered' in answer) {
        const { csv, xlsx } = answer.rendered;
        // Buffers arrive as plain Uint8Arrays.
        waiting?.resolve({
          csv: csv && Buffer.from(csv.buffer, csv.byteOffset, csv.byteLength),
          xlsx: xlsx && Buffer.from(xlsx.buffer, xlsx.byteOffset, xlsx.byteLength),
        });
      } else
        waiting?.reject(
          new RenderThreadFailedError(`render thread ${index} could not render a batch: ${answer.error}`),
        );
    });
    let threadError: unknown;
    this.#worker.on('error', (error) => (threadError = error));
    this.#worker.on('exit', (code) => {
      if (this.#closing && this.#waiting.size === 0) return;
      const reason = threadError === undefined ? `exit code ${code}` : String(threadError);
      this.#fail(
        new RenderThreadFailedError(
          `render thread ${index} ended (${reason}); nothing was published`,
          threadError,
        ),
      );
    });
  }

  render(seq: number, request: RenderRequest): Promise<RenderedShifts> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
      this.#worker.postMessage({ seq, request } satisfies ToRenderThread);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#fail(new RenderThreadFailedError('the render threads were closed'));
    await this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
    this.#waiting.clear();
  }
}

export class RenderPool {
  readonly #threads: RenderThread[];
  #seq = 0;

  /** Starts `threads` render threads (at least one). */
  constructor(threads: number, setup: RenderSetup) {
    this.#threads = Array.from({ length: Math.max(1, threads) }, (_, i) => new RenderThread(setup, i + 1));
  }

  get size(): number {
    return this.#threads.length;
  }

  /** Renders one batch on the next thread in turn. */
  render(request: RenderRequest): Promise<RenderedShifts> {
    const seq = this.#seq++;
    return (this.#threads[seq % this.#threads.length] as RenderThread).render(seq, request);
  }

  /** Ends every thread; batches still waiting fail. */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}

/**
 * The thread's module. Threads run JavaScript: from the build, the file beside this one; from the
 * TypeScript sources (the tests), the build's copy (`npm test` builds first).
 */
function threadEntry(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../../dist/src/export/render-thread-entry.js', here)
    : new URL('./render-thread-entry.js', here);
}
