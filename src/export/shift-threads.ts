// The threads that work the report's cuts (cut-work.ts) for an export, EXPORT_THREADS of them:
// each takes cuts in turn (round robin) and answers them in the order it got them; the reader
// takes the answers in report order (parsed-cuts.ts). With one thread the cuts are worked on the
// export's own thread, one before the next, through the same code.
//
// A thread that ends unexpectedly (an uncaught error, out of memory, terminated) fails every cut
// still waiting with a retryable EXPORT_THREAD_FAILED, and the export fails before publishing
// anything; close() ends the threads however the export ended.

import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import type { CutParser, ParsedCut } from '../wfm/parsed-cuts.js';
import type { ScannedCut } from '../wfm/scanned-cut.js';
import { AnsweringThread, RenderThreadFailedError, threadModule } from './answering-thread.js';
import { CutWorker, type CutWorkSetup, type ThreadAnswer, type WorkedCut } from './cut-work.js';

/** A cut as an export thread receives it: its buffer moved there, not copied. */
export interface ToShiftThread {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
  /** Buffers of the thread's answers that the export's thread has taken: it carves new answers from them. */
  readonly reuse: readonly ArrayBuffer[];
}

/** Every answer moves the cut's buffer back (`bytes`), for the scanner's next cut. */
export type FromShiftThread = { readonly seq: number; readonly bytes: Uint8Array } & (
  ThreadAnswer | { readonly malformed: string } | { readonly error: string }
);

class ShiftThread {
  readonly #thread: AnsweringThread<ToShiftThread, FromShiftThread, ParsedCut<WorkedCut>, ScannedCut>;
  /** What the thread held at its last answer (V8 heap in use plus external memory), bytes. */
  heldBytes = 0;
  /** Buffers of its answers that go back with the next cut. */
  #reuse: ArrayBuffer[] = [];

  constructor(setup: CutWorkSetup, index: number) {
    this.#thread = new AnsweringThread<ToShiftThread, FromShiftThread, ParsedCut<WorkedCut>, ScannedCut>({
      entry: threadModule('shift-thread-entry'),
      workerData: setup,
      name: `export thread ${index}`,
      closedMessage: 'the export threads were closed',
      settle: (answer, cut) => {
        if ('worked' in answer) {
          this.heldBytes = answer.threadBytes;
          const { worked, bytes } = answer;
          return {
            batch: worked,
            ids: worked.ids,
            bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          };
        }
        // A wrong guess needs no bytes back: the scanner cuts again from the body's bytes it kept.
        if ('malformed' in answer) return new JsonArrayScanError('malformed', cut.start, answer.malformed);
        return new RenderThreadFailedError(`export thread ${index} could not work a cut: ${answer.error}`);
      },
    });
  }

  /**
   * From now on the cut's bytes are on the thread: nothing here may read them (the scanner's
   * confirm() and rewind() read only its offsets) until the answer brings them back.
   */
  work(cut: ScannedCut): Promise<ParsedCut<WorkedCut>> {
    const { bytes, start, end } = cut;
    const reuse = this.#reuse;
    this.#reuse = [];
    return this.#thread.ask({ bytes, start, end, reuse }, cut, [bytes.buffer as ArrayBuffer, ...reuse]);
  }

  /** The buffer of one of its answers, taken: it goes with the next cut (unusable here from then on). */
  reuse(buffer: ArrayBuffer): void {
    this.#reuse.push(buffer);
  }

  async close(): Promise<void> {
    this.heldBytes = 0;
    await this.#thread.close();
  }
}

/** The cuts of an export's report, worked on `threads` threads (1: this one). */
export class ShiftThreads implements CutParser<WorkedCut> {
  readonly depth: number;
  readonly #threads: ShiftThread[];
  readonly #here: CutWorker | undefined;
  /** Which thread made each answer's buffer. */
  readonly #makers = new WeakMap<ArrayBuffer, ShiftThread>();
  #next = 0;

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
    const thread = this.#threads[this.#next++ % this.#threads.length] as ShiftThread;
    return thread.work(cut).then((parsed) => {
      this.#makers.set(parsed.batch.buffer, thread);
      return parsed;
    });
  }

  /**
   * Worked cuts whose rows the export's thread has taken, and which nothing here reads any more:
   * their buffers go back to the threads that made them, for later cuts.
   */
  reuse(cuts: readonly WorkedCut[]): void {
    for (const { buffer } of cuts) {
      if (this.#here !== undefined) this.#here.reuse(buffer);
      else this.#makers.get(buffer)?.reuse(buffer);
    }
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
