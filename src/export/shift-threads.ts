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

import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import type { CutParser, ParsedCut } from '../wfm/parsed-cuts.js';
import type { ScannedCut } from '../wfm/scanned-cut.js';
import { AnsweringThread, RenderThreadFailedError, threadModule } from './answering-thread.js';
import { CutWorker, type CutWorkSetup, type ThreadAnswer, type WorkedCut } from './cut-work.js';
import { knownTextIdsOf, SheetRowsKeeper, type SheetRows, type SheetRowsRequest } from './sheet-rows-work.js';

/**
 * A cut as an export thread receives it: its buffer moved there, not copied. `cut`: a piece of
 * the report; `spool`: a run of a division's spool lines (cut-work.ts, workSpoolLines).
 */
export interface ToShiftThread {
  readonly kind: 'cut' | 'spool';
  /** The cut's number among the export's cuts: its thread keeps the cut's records by it. */
  readonly cut: number;
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

/** A cut's sheet rows, asked for (sheet-rows-work.ts). */
export interface SheetRowsToThread {
  readonly kind: 'sheet';
  readonly sheet: SheetRowsRequest;
}
export type SheetRowsFromThread = { readonly seq: number } & (
  { readonly sheet: SheetRows } | { readonly error: string }
);

type ToThread = ToShiftThread | SheetRowsToThread;
type FromThread = FromShiftThread | SheetRowsFromThread;
/** What the export's thread keeps of a request: the cut it sent, or nothing for sheet rows. */
type Asked = ScannedCut | undefined;

class ShiftThread {
  readonly #thread: AnsweringThread<ToThread, FromThread, ParsedCut<WorkedCut> | SheetRows, Asked>;
  /** What the thread held at its last answer (V8 heap in use plus external memory), bytes. */
  heldBytes = 0;
  /** Buffers of its answers that go back with the next cut. */
  #reuse: ArrayBuffer[] = [];

  constructor(setup: CutWorkSetup, index: number) {
    this.#thread = new AnsweringThread<ToThread, FromThread, ParsedCut<WorkedCut> | SheetRows, Asked>({
      entry: threadModule('shift-thread-entry'),
      workerData: setup,
      name: `export thread ${index}`,
      closedMessage: 'the export threads were closed',
      settle: (answer, cut) => {
        if (cut === undefined) {
          if ('sheet' in answer) return answer.sheet;
          const error = 'error' in answer ? answer.error : 'an answer that is not sheet rows';
          return new RenderThreadFailedError(`export thread ${index} could not render sheet rows: ${error}`);
        }
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
        const error = 'error' in answer ? answer.error : 'an answer that is not a worked cut';
        return new RenderThreadFailedError(`export thread ${index} could not work a cut: ${error}`);
      },
    });
  }

  /**
   * From now on the cut's bytes are on the thread: nothing here may read them (the scanner's
   * confirm() and rewind() read only its offsets) until the answer brings them back.
   */
  work(number: number, cut: ScannedCut, kind: ToShiftThread['kind'] = 'cut'): Promise<ParsedCut<WorkedCut>> {
    const { bytes, start, end } = cut;
    const reuse = this.#reuse;
    this.#reuse = [];
    const request: ToShiftThread = { kind, cut: number, bytes, start, end, reuse };
    // Its answer to a cut is a worked cut (settle above).
    return this.#thread.ask(request, cut, [bytes.buffer as ArrayBuffer, ...reuse]) as Promise<
      ParsedCut<WorkedCut>
    >;
  }

  /** The sheet rows of a cut this thread worked. */
  renderSheetRows(sheet: SheetRowsRequest): Promise<SheetRows> {
    return this.#thread.ask({ kind: 'sheet', sheet }, undefined) as Promise<SheetRows>;
  }

  /**
   * The buffer of one of its answers (a worked cut, or sheet rows), taken: it goes with the next
   * cut (unusable here from then on).
   */
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
  /** Split by division with a workbook: each spool run's records are kept for its sheet rows. */
  readonly keepsSpoolSheetRows: boolean;
  readonly #threads: ShiftThread[];
  readonly #here: CutWorker | undefined;
  /** With one thread and a workbook: the records this thread keeps for the sheet rows. */
  readonly #hereSheetRows: SheetRowsKeeper | undefined;
  /** Which cuts' records are kept for sheet rows: the report's (a workbook), or only the spool runs' (split). */
  readonly #keepsReportSheetRows: boolean;
  /** The next cut's number: it goes to thread number % threads, which keeps its records by it. */
  #seq = 0;

  constructor(threads: number, setup: CutWorkSetup) {
    const count = Math.max(1, Math.floor(threads));
    this.keepsSpoolSheetRows = setup.division?.sheetRows === true;
    this.#keepsReportSheetRows = setup.sheetRows === true;
    this.#here = count === 1 ? new CutWorker(setup) : undefined;
    this.#hereSheetRows =
      count === 1 && (this.#keepsReportSheetRows || this.keepsSpoolSheetRows)
        ? new SheetRowsKeeper(knownTextIdsOf(setup))
        : undefined;
    this.#threads = count === 1 ? [] : Array.from({ length: count }, (_, i) => new ShiftThread(setup, i + 1));
    // Two cuts a thread: one worked while the other's answer travels. With a workbook, one: each
    // cut's records stay on its thread until its sheet rows are asked for, and the sheet requests
    // keep a thread busy between cuts (300k rows CSV+XLSX, 2026-11-26, 2-core AMD EPYC: 255 ->
    // 234 MB peak RSS at the same rate; CSV alone lost ~10% of its rate with one).
    this.depth = count === 1 ? 1 : setup.sheetRows === true ? count : count * 2;
  }

  parse(cut: ScannedCut): ParsedCut<WorkedCut> | Promise<ParsedCut<WorkedCut>> {
    const seq = this.#seq++;
    if (this.#here !== undefined) {
      const keeper = this.#hereSheetRows;
      const { worked, records, sharedLabels, entries } = this.#here.workKeepingRecords(cut, keeper?.known);
      if (this.#keepsReportSheetRows) keeper?.keep(seq, records, sharedLabels, entries);
      return { batch: { ...worked, seq }, ids: worked.ids };
    }
    return this.#threadOf(seq)
      .work(seq, cut)
      .then((parsed) => ({ ...parsed, batch: { ...parsed.batch, seq } }));
  }

  /**
   * A run of a division's spool lines (whole lines, `bytes` its own buffer: it moves to the
   * thread), worked into the division's outputs as a cut of the report is (division-split.ts).
   * Numbered among the report's cuts, so that its thread keeps its records for the sheet rows.
   */
  workSpoolLines(bytes: Buffer): Promise<WorkedCut> {
    const seq = this.#seq++;
    const cut: ScannedCut = { bytes, start: 0, end: bytes.length, guessed: false };
    if (this.#here !== undefined) {
      try {
        const { worked, records, sharedLabels } = this.#here.workSpoolLines(cut);
        if (this.keepsSpoolSheetRows) this.#hereSheetRows?.keep(seq, records, sharedLabels);
        return Promise.resolve({ ...worked, seq });
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return this.#threadOf(seq)
      .work(seq, cut, 'spool')
      .then((parsed) => ({ ...parsed.batch, seq }));
  }

  /** The sheet rows of a worked cut (its `seq`), on the thread that worked it. */
  renderSheetRows(request: SheetRowsRequest): Promise<SheetRows> {
    const worker = this.#here;
    if (worker !== undefined) {
      const here = this.#hereSheetRows;
      if (here === undefined)
        return Promise.reject(new Error('these threads keep no records for sheet rows'));
      try {
        return Promise.resolve(here.render(request, worker.rowBuffers));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return this.#threadOf(request.seq).renderSheetRows(request);
  }

  /**
   * The buffer of a cut's sheet rows (`seq`), written: back to the thread that rendered them, for
   * later rows and cuts (unusable here from then on).
   */
  reuseSheetRows(seq: number, buffer: ArrayBuffer): void {
    this.#giveBack(seq, buffer);
  }

  /**
   * Worked cuts whose rows the export's thread has taken, and which nothing here reads any more:
   * their buffers go back to the threads that made them, for later cuts.
   */
  reuse(cuts: readonly WorkedCut[]): void {
    for (const { buffer, seq } of cuts) if (seq !== undefined) this.#giveBack(seq, buffer);
  }

  /** A buffer made for cut `seq`, back to the worker that made it. */
  #giveBack(seq: number, buffer: ArrayBuffer): void {
    if (this.#here !== undefined) this.#here.reuse(buffer);
    else this.#threadOf(seq).reuse(buffer);
  }

  /** The thread that cut `seq` went to, which keeps its records and made its answers' buffers. */
  #threadOf(seq: number): ShiftThread {
    return this.#threads[seq % this.#threads.length] as ShiftThread;
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
