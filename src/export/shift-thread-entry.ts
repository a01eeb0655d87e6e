// The body of an export thread (shift-threads.ts starts it): works the cuts it is sent, in the
// order sent, and posts each answer back with its buffers transferred. A cut that is not JSON is
// answered as malformed (the reader rewinds to a wrong guess, or fails the read); a cut that
// cannot be worked otherwise is answered with its error; anything else that breaks ends the
// thread, which the pool reports as EXPORT_THREAD_FAILED. With a workbook, it keeps each cut's
// admitted records and renders their sheet rows when asked (sheet-rows-work.ts).

import { parentPort, workerData } from 'node:worker_threads';
import { measuredMemory } from '../pipeline/group-memory.js';
import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import { CutWorker, type CutWorkSetup } from './cut-work.js';
import { SheetRowsKeeper, type SheetRows } from './sheet-rows-work.js';
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
const sheetRows = setup.sheetRows === true ? new SheetRowsKeeper() : undefined;

port.on('message', (message: ToShiftThread | SheetRowsToThread) => {
  if ('sheet' in message) {
    answerSheetRows(message.sheetSeq, () => {
      if (sheetRows === undefined) throw new Error('this thread keeps no records for sheet rows');
      return sheetRows.render(message.sheet);
    });
    return;
  }
  const { seq, bytes, start, end } = message;
  let answer: FromShiftThread;
  const transfer: ArrayBuffer[] = [];
  try {
    const cut = {
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      start,
      end,
      guessed: false,
    };
    const { worked, records } = worker.workKeepingRecords(cut);
    sheetRows?.keep(seq, records);
    answer = { seq, worked, threadBytes: measuredMemory() };
    for (const array of [
      worked.ids,
      worked.outcomes,
      worked.facts,
      worked.labels,
      worked.hashes,
      worked.csv,
      worked.csvEnds,
    ])
      if (array !== undefined && array.byteLength > 0 && !transfer.includes(array.buffer as ArrayBuffer))
        transfer.push(array.buffer as ArrayBuffer);
  } catch (error) {
    answer =
      error instanceof JsonArrayScanError && error.kind === 'malformed'
        ? { seq, malformed: error.message }
        : { seq, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer, transfer);
});

function answerSheetRows(seq: number, render: () => SheetRows): void {
  let answer: SheetRowsFromThread;
  const transfer: ArrayBuffer[] = [];
  try {
    const sheet = render();
    answer = { sheetSeq: seq, sheet };
    if ('xml' in sheet && sheet.xml.byteLength > 0) transfer.push(sheet.xml.buffer as ArrayBuffer);
  } catch (error) {
    answer = { sheetSeq: seq, error: error instanceof Error ? error.message : String(error) };
  }
  port?.postMessage(answer, transfer);
}
