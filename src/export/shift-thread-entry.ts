// The body of an export thread (shift-threads.ts starts it): works the cuts it is sent, in the
// order sent, and posts each answer back with its buffer transferred, and the cut's own; the
// buffers of answers the export's thread has taken come back with later cuts, for the next answers.
// A cut that is not JSON is answered as malformed (the reader rewinds to a wrong guess, or fails
// the read); a cut that cannot be worked otherwise is answered with its error; anything else that
// breaks ends the thread, which the pool reports as EXPORT_THREAD_FAILED. With a workbook, it
// keeps each cut's admitted records and renders their sheet rows when asked (sheet-rows-work.ts).

import { parentPort, workerData } from 'node:worker_threads';
import { measuredMemory } from '../pipeline/group-memory.js';
import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import type { NumberedRequest } from './answering-thread.js';
import { CutWorker, type CutWorkSetup } from './cut-work.js';
import { knownTextIdsOf, SheetRowsKeeper, type SheetRowsRequest } from './sheet-rows-work.js';
import type {
  FromShiftThread,
  SheetRowsFromThread,
  SheetRowsToThread,
  ToShiftThread,
} from './shift-threads.js';

const port = parentPort;
if (port === null) throw new Error('shift-thread-entry runs only as a worker thread');
const setup = workerData as CutWorkSetup;
const worker = new CutWorker(setup);
// Split by division, only a division's spool cuts are kept for sheet rows: the report's cuts are not.
const keepsReportCuts = setup.sheetRows === true;
const keepsSpoolCuts = setup.division?.sheetRows === true;
const sheetRows = keepsReportCuts || keepsSpoolCuts ? new SheetRowsKeeper(knownTextIdsOf(setup)) : undefined;

port.on('message', ({ seq, request }: NumberedRequest<ToShiftThread | SheetRowsToThread>) => {
  if (request.kind === 'sheet') answerSheetRows(seq, request.sheet);
  else answerCut(seq, request);
});

function answerCut(seq: number, { kind, cut: number, bytes, start, end, reuse }: ToShiftThread): void {
  for (const buffer of reuse) worker.reuse(buffer);
  let answer: FromShiftThread;
  // The cut's buffer goes back with every answer: the export's thread cuts the next cut in it.
  const transfer: ArrayBuffer[] = [bytes.buffer as ArrayBuffer];
  try {
    const cut = {
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      start,
      end,
      guessed: false,
    };
    const spool = kind === 'spool';
    const { worked, records, sharedLabels, entries } = spool
      ? worker.workSpoolLines(cut)
      : worker.workKeepingRecords(cut, sheetRows?.known);
    if (spool ? keepsSpoolCuts : keepsReportCuts) sheetRows?.keep(number, records, sharedLabels, entries);
    answer = { seq, bytes, worked, threadBytes: measuredMemory() };
    transfer.push(worked.buffer);
  } catch (error) {
    answer =
      error instanceof JsonArrayScanError && error.kind === 'malformed'
        ? { seq, bytes, malformed: error.message }
        : { seq, bytes, error: error instanceof Error ? error.message : String(error) };
  }
  port?.postMessage(answer, transfer);
}

function answerSheetRows(seq: number, request: SheetRowsRequest): void {
  let answer: SheetRowsFromThread;
  const transfer: ArrayBuffer[] = [];
  try {
    if (sheetRows === undefined) throw new Error('this thread keeps no records for sheet rows');
    const sheet = sheetRows.render(request, worker.rowBuffers);
    answer = { seq, sheet };
    // Moved, not copied: the rows' bytes are a view of a buffer of their own (SheetRows), never of
    // Node's shared pool, which newer Node refuses to move. Copied, they had cost each export
    // thread a seventh of its time in the message's serialisation and its fresh pages.
    if ('xml' in sheet && sheet.xml.byteLength > 0) transfer.push(sheet.xml.buffer as ArrayBuffer);
  } catch (error) {
    answer = { seq, error: error instanceof Error ? error.message : String(error) };
  }
  port?.postMessage(answer, transfer);
}
