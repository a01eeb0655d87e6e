// One thread that answers requests, for the export's pool of threads (shift-threads.ts): each
// request is numbered, sent with its number, and settled by the answer that carries the number
// back. The thread answers in the order it was asked, but nothing here relies on it.
//
// A thread that ends unexpectedly (an uncaught error, out of memory, terminated) fails every
// request still waiting, and every later one, with a retryable EXPORT_THREAD_FAILED: the export
// then fails before publishing anything. close() ends the thread however the export ended.

import { channel } from 'node:diagnostics_channel';
import { Worker, type Transferable } from 'node:worker_threads';
import { ShiftExportError } from '../errors.js';

/** A thread of the export ended, or could not answer a request: the export fails, retryably. */
export class RenderThreadFailedError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    super('EXPORT_THREAD_FAILED', message, { retryable: true, cause });
  }
}

/**
 * Published with `{ thread }` when a thread of the export starts: for diagnostics, and for tests
 * that end one.
 */
export const renderThreadStarted = channel('shift-export:render-thread-started');

/** A request as the thread receives it. */
export interface NumberedRequest<Q> {
  readonly seq: number;
  readonly request: Q;
}

/** Every answer carries the number of the request it answers. */
export interface NumberedAnswer {
  readonly seq: number;
}

export interface AnsweringThreadOptions<A extends NumberedAnswer, R, C> {
  /** The thread's module (threadModule()). */
  readonly entry: URL;
  readonly workerData: unknown;
  /** The thread as errors name it: "export thread 2". */
  readonly name: string;
  /** What requests fail with once the thread is closed. */
  readonly closedMessage: string;
  /** What an answer settles its request with: a result, or the error it fails with. */
  readonly settle: (answer: A, context: C) => R | Error;
}

interface Waiting<R, C> {
  readonly context: C;
  readonly resolve: (result: R) => void;
  readonly reject: (error: Error) => void;
}

// A thread holds a request or two and their answers at a time: a small young generation keeps its
// memory small (its heap is mostly short-lived rows and strings). V8's --max-semi-space-size, when
// given, overrides this: the bin's first line and the Docker image give the size that makes the
// same 4 MB (bin/shift-export.js).
export const THREAD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4 } as const;

/**
 * A thread asked requests of type Q, answering with A; each request settles as R. `C`: what the
 * export's thread keeps of a request until its answer (settle() gets it).
 */
export class AnsweringThread<Q, A extends NumberedAnswer, R, C = undefined> {
  readonly #worker: Worker;
  readonly #settle: (answer: A, context: C) => R | Error;
  readonly #closedMessage: string;
  readonly #waiting = new Map<number, Waiting<R, C>>();
  #seq = 0;
  #failure: Error | undefined;
  #closing = false;

  constructor(options: AnsweringThreadOptions<A, R, C>) {
    this.#settle = options.settle;
    this.#closedMessage = options.closedMessage;
    this.#worker = new Worker(options.entry, {
      workerData: options.workerData,
      resourceLimits: THREAD_RESOURCE_LIMITS,
      // Node's default, said here because it is relied on: a thread that dies, however, has the
      // files it opened (a statistics thread's spilled runs) closed as it ends.
      trackUnmanagedFds: true,
    });
    if (renderThreadStarted.hasSubscribers) renderThreadStarted.publish({ thread: this.#worker });
    this.#worker.on('message', (answer: A) => {
      const waiting = this.#waiting.get(answer.seq);
      this.#waiting.delete(answer.seq);
      if (waiting === undefined) return;
      const settled = this.#settle(answer, waiting.context);
      if (settled instanceof Error) waiting.reject(settled);
      else waiting.resolve(settled);
    });
    let threadError: unknown;
    this.#worker.on('error', (error) => (threadError = error));
    this.#worker.on('exit', (code) => {
      if (this.#closing && this.#waiting.size === 0) return;
      const reason = threadError === undefined ? `exit code ${code}` : String(threadError);
      this.#fail(
        new RenderThreadFailedError(`${options.name} ended (${reason}); nothing was published`, threadError),
      );
    });
  }

  /**
   * Sends a request (`transfer`: its buffers that move to the thread, unusable here from now on);
   * resolves with what its answer settles it with.
   */
  ask(request: Q, context: C, transfer: readonly Transferable[] = []): Promise<R> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const seq = this.#seq++;
      this.#waiting.set(seq, { context, resolve, reject });
      const message: NumberedRequest<Q> = { seq, request };
      try {
        this.#worker.postMessage(message, transfer);
      } catch (error) {
        this.#waiting.delete(seq);
        throw error;
      }
    });
  }

  /** Ends the thread; requests still waiting fail. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#fail(new RenderThreadFailedError(this.#closedMessage));
    await this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
    this.#waiting.clear();
  }
}

/**
 * A thread's module, by its name in src/export: from the build, the file beside this one; from the
 * TypeScript sources (the tests), the build's copy (`npm test` builds first). Threads run JavaScript.
 */
export function threadModule(name: string): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL(`../../dist/src/export/${name}.js`, here)
    : new URL(`./${name}.js`, here);
}
