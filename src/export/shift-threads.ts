// The threads that work the report's cuts (cut-work.ts) for an export, EXPORT_THREADS of them:
// each takes cuts in turn (round robin) and answers them in the order it got them; the reader
// takes the answers in report order (parsed-cuts.ts). With one thread the cuts are worked on the
// export's own thread, one before the next, through the same code.
//
// A thread that ends unexpectedly (an uncaught error, out of memory, terminated) fails every cut
// still waiting with a retryable EXPORT_THREAD_FAILED, and the export fails before publishing
// anything; close() ends the threads however the export ended.
//
// With a workbook, each thread keeps the records of the cuts it worked, and renders their sheet
// rows when the export's thread asks for them in report order (sheet-rows-work.ts).

import { Worker } from 'node:worker_threads';
import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import type { CutParser, ParsedCut } from '../wfm/parsed-cuts.js';
import type { ScannedCut } from '../wfm/scanned-cut.js';
import { CutWorker, type CutWorkSetup, type ThreadAnswer, type WorkedCut } from './cut-work.js';
import { RenderThreadFailedError, renderThreadStarted } from './render-pool.js';
import { SheetRowsKeeper, type SheetRows, type SheetRowsRequest } from './sheet-rows-work.js';

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

/** A cut's sheet rows, asked for and answered (sheet-rows-work.ts). */
export interface SheetRowsToThread {
  /** The request's number on its thread (a cut taken in several ranges is asked several times). */
  readonly sheetSeq: number;
  readonly sheet: SheetRowsRequest;
}
export type SheetRowsFromThread =
  | { readonly sheetSeq: number; readonly sheet: SheetRows }
  | { readonly sheetSeq: number; readonly error: string };

interface SheetRowsWaiting {
  readonly resolve: (rows: SheetRows) => void;
  readonly reject: (error: Error) => void;
}

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
  readonly #sheetRows = new Map<number, SheetRowsWaiting>();
  #sheetSeq = 0;
  #failure: Error | undefined;
  #closing = false;
  /** What the thread held at its last answer (V8 heap in use plus external memory), bytes. */
  heldBytes = 0;

  constructor(setup: CutWorkSetup, index: number) {
    this.#worker = new Worker(threadEntry(), { workerData: setup, resourceLimits: RESOURCE_LIMITS });
    if (renderThreadStarted.hasSubscribers) renderThreadStarted.publish({ thread: this.#worker });
    this.#worker.on('message', (answer: FromShiftThread | SheetRowsFromThread) => {
      if ('sheetSeq' in answer) {
        this.#answerSheetRows(answer, index);
        return;
      }
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
      if (this.#closing && this.#waiting.size === 0 && this.#sheetRows.size === 0) return;
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

  /** The sheet rows of a cut this thread worked; asked once per range of it, in report order. */
  renderSheetRows(request: SheetRowsRequest): Promise<SheetRows> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const sheetSeq = this.#sheetSeq++;
      this.#sheetRows.set(sheetSeq, { resolve, reject });
      this.#worker.postMessage({ sheetSeq, sheet: request } satisfies SheetRowsToThread);
    });
  }

  #answerSheetRows(answer: SheetRowsFromThread, index: number): void {
    const waiting = this.#sheetRows.get(answer.sheetSeq);
    this.#sheetRows.delete(answer.sheetSeq);
    if ('sheet' in answer) waiting?.resolve(answer.sheet);
    else
      waiting?.reject(
        new RenderThreadFailedError(`export thread ${index} could not render sheet rows: ${answer.error}`),
      );
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
    for (const waiting of this.#sheetRows.values()) waiting.reject(this.#failure);
    this.#sheetRows.clear();
  }
}

/** The cuts of an export's report, worked on `threads` threads (1: this one). */
export class ShiftThreads implements CutParser<WorkedCut> {
  readonly depth: number;
  readonly #threads: ShiftThread[];
  readonly #here: CutWorker | undefined;
  /** With one thread and a workbook: the records this thread keeps for the sheet rows. */
  readonly #hereSheetRows: SheetRowsKeeper | undefined;
  #seq = 0;

  constructor(threads: number, setup: CutWorkSetup) {
    const count = Math.max(1, Math.floor(threads));
    this.#here = count === 1 ? new CutWorker(setup) : undefined;
    this.#hereSheetRows = count === 1 && setup.sheetRows === true ? new SheetRowsKeeper() : undefined;
    this.#threads = count === 1 ? [] : Array.from({ length: count }, (_, i) => new ShiftThread(setup, i + 1));
    // Two cuts a thread: one worked while the other's answer travels.
    this.depth = count === 1 ? 1 : count * 2;
  }

  parse(cut: ScannedCut): ParsedCut<WorkedCut> | Promise<ParsedCut<WorkedCut>> {
    const seq = this.#seq++;
    if (this.#here !== undefined) {
      const { worked, records } = this.#here.workKeepingRecords(cut);
      this.#hereSheetRows?.keep(seq, records);
      return { batch: { ...worked, seq }, ids: worked.ids };
    }
    const thread = this.#threads[seq % this.#threads.length] as ShiftThread;
    return thread.work(seq, cut).then((worked) => ({ batch: { ...worked, seq }, ids: worked.ids }));
  }

  /** The sheet rows of a worked cut (its `seq`), on the thread that worked it. */
  renderSheetRows(request: SheetRowsRequest): Promise<SheetRows> {
    const here = this.#hereSheetRows;
    if (this.#here !== undefined) {
      if (here === undefined)
        return Promise.reject(new Error('these threads keep no records for sheet rows'));
      try {
        return Promise.resolve(here.render(request));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return (this.#threads[request.seq % this.#threads.length] as ShiftThread).renderSheetRows(request);
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
