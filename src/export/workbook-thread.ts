// The workbook thread: a ShiftsWorkbookWriter fed with batches of shifts from the export's thread,
// its bytes sent back to be written into the destination there. Requests are handled one at a time,
// in order; each is answered `done` or `failed` once the writer has taken it (including its waits
// for the destination), so the sender's window of unanswered batches is the memory bound.

import { parentPort, workerData } from 'node:worker_threads';
import { Writable } from 'node:stream';
import type { ShiftRecord } from '../domain/shift-record.js';
import { ShiftExportError } from '../errors.js';
import { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import type {
  FromWorkbookThread,
  ThreadErrorData,
  ToWorkbookThread,
  WorkbookThreadData,
} from './workbook-thread-protocol.js';

/** Workbook bytes sent but not yet taken by the destination, above which the writer waits. */
const BYTES_IN_FLIGHT = 4 * 1024 * 1024;

const port = parentPort;
if (port === null) throw new Error('workbook-thread.js runs as a worker thread');
const { options } = workerData as WorkbookThreadData;
const send = (message: FromWorkbookThread, transfer?: ArrayBuffer[]): void =>
  port.postMessage(message, transfer);

let inFlight = 0;
let waiting: (() => void) | undefined;
const sink = new Writable({
  highWaterMark: 256 * 1024,
  write(chunk: Buffer, _encoding, callback) {
    // A copy of its own: the chunk may be a view into a shared pool, which cannot be transferred.
    const bytes = new Uint8Array(chunk);
    inFlight += bytes.byteLength;
    send({ type: 'chunk', bytes }, [bytes.buffer as ArrayBuffer]);
    if (inFlight < BYTES_IN_FLIGHT) callback();
    else waiting = () => callback();
  },
  final(callback) {
    send({ type: 'end' });
    callback();
  },
});

const writer = new ShiftsWorkbookWriter(sink, options);
let queue: Promise<void> = Promise.resolve();

function errorData(error: unknown): ThreadErrorData {
  if (error instanceof ShiftExportError)
    return { code: error.code, message: error.message, retryable: error.retryable };
  return {
    code: 'XLSX_WRITE_FAILED',
    message: error instanceof Error ? error.message : String(error),
    retryable: true,
  };
}

async function addShifts(json: string): Promise<void> {
  const records = JSON.parse(json) as ShiftRecord[];
  for (const record of records) {
    const wait = writer.addShift(record);
    if (wait) await wait;
  }
}

async function handle(message: ToWorkbookThread): Promise<void> {
  switch (message.type) {
    case 'shifts':
      return addShifts(message.json);
    case 'rejected':
      for (const row of message.rows) {
        const wait = writer.addRejected(row);
        if (wait) await wait;
      }
      return;
    case 'finish':
      return writer.finish(message.summaries, message.about);
    case 'abort':
    case 'ack':
      return;
  }
}

port.on('message', (message: ToWorkbookThread) => {
  if (message.type === 'ack') {
    inFlight -= message.bytes;
    if (waiting !== undefined && inFlight < BYTES_IN_FLIGHT) {
      const resume = waiting;
      waiting = undefined;
      resume();
    }
    return;
  }
  if (message.type === 'abort') {
    // Not queued behind a request that may be waiting for acknowledgements that will never come.
    void writer.abort(new Error(message.message)).finally(() => send({ type: 'done', seq: message.seq }));
    return;
  }
  queue = queue.then(() =>
    handle(message).then(
      () => send({ type: 'done', seq: message.seq }),
      (error: unknown) => send({ type: 'failed', seq: message.seq, error: errorData(error) }),
    ),
  );
});
