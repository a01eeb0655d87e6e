// The threads that work the report's cuts (cut-work.ts) for an export, EXPORT_THREADS of them:
// each takes cuts in turn (round robin) and answers them in the order it got them; the reader
// takes the answers in report order (parsed-cuts.ts). With one thread the cuts are worked on the
// export's own thread, one before the next, through the same code.
//
// A thread that ends unexpectedly (an uncaught error, out of memory, terminated) fails every cut
// still waiting with a retryable EXPORT_THREAD_FAILED, and the export fails before publishing
// anything; close() ends the threads however the export ended.

import { Worker } from 'node:worker_threads';
import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import type { CutParser, ParsedCut } from '../wfm/parsed-cuts.js';
import type { ScannedCut } from '../wfm/scanned-cut.js';
import { CutWorker, type CutWorkSetup, type ThreadAnswer, type WorkedCut } from './cut-work.js';
import { RenderThreadFailedError, renderThreadStarted } from './render-pool.js';

export interface ToShiftThread {
  readonly seq: number;
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
}

export type FromShiftThread =
  | ({ readonly seq: number } & ThreadAnswer)
  | { readonly seq: number; readonly malformed: string }
  | { readonly seq: number; readonly error: string };

interface Waiting {
  readonly cut: ScannedCut;
  readonly resolve: (worked: WorkedCut) => void;
  readonly reject: (error: Error) => void;
}

// A thread holds a few cuts and their answers at a time: a small young generation keeps its memory
// small (its heap is mostly short-lived rows and strings).
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8 };

class ShiftThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #failure: Error | undefined;
  #closing = false;
  /** What the thread held at its last answer (V8 heap in use plus external memory), bytes. */
  heldBytes = 0;

  constructor(setup: CutWorkSetup, index: number) {
    this.#worker = new Worker(threadEntry(), { workerData: setup, resourceLimits: RESOURCE_LIMITS });
    if (renderThreadStarted.hasSubscribers) renderThreadStarted.publish({ thread: this.#worker });
    this.#worker.on('message', (answer: FromShiftThread) => {
      const waiting = this.#waiting.get(answer.seq);
      this.#waiting.delete(answer.seq);
      if (waiting === undefined) return;
      if ('worked' in answer) {
        this.heldBytes = answer.threadBytes;
        waiting.resolve(answer.worked);
      } else if ('malformed' in answer)
        waiting.reject(new JsonArrayScanError('malformed', waiting.cut.start, answer.malformed));
      else
        waiting.reject(
          new RenderThreadFailedError(`export thread ${index} could not work a cut: ${answer.error}`),
        );
    });
    let threadError: unknown;
    this.#worker.on('error', (error) => (threadError = error));
    this.#worker.on('exit', (code) => {
      if (this.#closing && this.#waiting.size === 0) return;
      const reason = threadError === undefined ? `exit code ${code}` : String(threadError);
      this.#fail(
        new RenderThreadFailedError(
          `export thread ${index} ended (${reason}); nothing was published`,
          threadError,
        ),
      );
    });
  }

  work(seq: number, cut: ScannedCut): Promise<WorkedCut> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { cut, resolve, reject });
      // A copy of exactly the cut's bytes (its pooled buffer may be larger, and is used again).
      const bytes = new Uint8Array(cut.bytes);
      const message: ToShiftThread = { seq, bytes, start: cut.start, end: cut.end };
      this.#worker.postMessage(message, [bytes.buffer]);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.heldBytes = 0;
    this.#fail(new RenderThreadFailedError('the export threads were closed'));
    await this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
    this.#waiting.clear();
  }
}

/** The cuts of an export's report, worked on `threads` threads (1: this one). */
export class ShiftThreads implements CutParser<WorkedCut> {
  readonly depth: number;
  readonly #threads: ShiftThread[];
  readonly #here: CutWorker | undefined;
  #seq = 0;

  constructor(threads: number, setup: CutWorkSetup) {
    const count = Math.max(1, Math.floor(threads));
    this.#here = count === 1 ? new CutWorker(setup) : undefined;
    this.#threads = count === 1 ? [] : Array.from({ length: count }, (_, i) => new ShiftThread(setup, i + 1));
    // Two cuts a thread: one worked while the other's answer travels.
    this.depth = count === 1 ? 1 : count * 2;
  }

  parse(cut: ScannedCut): ParsedCut<WorkedCut> | Promise<ParsedCut<WorkedCut>> {
    if (this.#here !== undefined) {
      const worked = this.#here.work(cut);
      return { batch: worked, ids: worked.ids };
    }
    const seq = this.#seq++;
    const thread = this.#threads[seq % this.#threads.length] as ShiftThread;
    return thread.work(seq, cut).then((worked) => ({ batch: worked, ids: worked.ids }));
  }

  /**
   * What the threads held at their last answers: EXPORT_MEMORY_MB bounds the export's threads
   * together, so the statistics on the export's thread spill sooner beside them.
   */
  heldBytes(): number {
    let bytes = 0;
    for (const thread of this.#threads) bytes += thread.heldBytes;
    return bytes;
  }

  /** Ends every thread; cuts still waiting fail. */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}

/** The thread's module: from the build, the file beside this one; from the sources (tests), the build's. */
function threadEntry(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../../dist/src/export/shift-thread-entry.js', here)
    : new URL('./shift-thread-entry.js', here);
}
