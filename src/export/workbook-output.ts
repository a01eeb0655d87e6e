// Where the export hands the workbook's rows: the streaming ShiftsWorkbookWriter in this thread
// (the default), or the same writer in a worker thread (threaded-workbook.ts) that renders on the
// second core. Both write the same bytes; the use case sees one small interface.
//
// Why this thread by default (bench/README.md, 1M rows, Node 20): with rows written as XML directly
// the workbook costs ~31 CPU-µs a row here, ~13 of them in zlib on libuv's thread pool already. The
// worker thread rendered the stage at 31k vs 39k rows/s here and, at 300k rows, finished a CSV+XLSX
// export 14% sooner for +20% CPU and +140 MB peak RSS: the shifts cross as JSON (~15 µs a row) and a
// second V8 heap holds exceljs and its garbage. On a small container the memory matters more; the
// thread is kept, tested byte-identical, for machines with cores and memory to spare.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import {
  ShiftsWorkbookWriter,
  type ShiftsWorkbookOptions,
  type WorkbookAbout,
} from '../render/xlsx/shifts-workbook-writer.js';
import { XlsxWriteError } from '../render/xlsx/xlsx-write-error.js';
import { ThreadedWorkbook } from './threaded-workbook.js';

export interface WorkbookOutput {
  addShift(record: ShiftRecord): Promise<void> | undefined;
  addRejected(row: RejectedRow): Promise<void> | undefined;
  finish(summaries: ExportSummaries, about: WorkbookAbout): Promise<void>;
  abort(error: unknown): Promise<void>;
}

export interface WorkbookOutputChoice {
  /** Default 'this-thread'. 'thread' needs the compiled workbook-thread.js (dist/). */
  readonly renderIn?: 'thread' | 'this-thread';
  /** The worker's entry; default the compiled workbook-thread.js beside this module. */
  readonly workerUrl?: URL;
}

const COMPILED_THREAD = new URL('./workbook-thread.js', import.meta.url);

export function openWorkbook(
  sink: Writable,
  options: ShiftsWorkbookOptions,
  choice: WorkbookOutputChoice = {},
): WorkbookOutput {
  if (choice.renderIn !== 'thread') return new ShiftsWorkbookWriter(sink, options);
  const workerUrl = choice.workerUrl ?? COMPILED_THREAD;
  if (workerUrl.protocol === 'file:' && !existsSync(fileURLToPath(workerUrl))) {
    throw new XlsxWriteError(`the workbook thread's entry ${workerUrl.href} is missing (run npm run build)`);
  }
  return new ThreadedWorkbook(sink, options, workerUrl);
}
