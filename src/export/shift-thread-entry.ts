// The body of an export thread (shift-threads.ts starts it): works the cuts it is sent, in the
// order sent, and posts each answer back with its buffer transferred, and the cut's own; the
// buffers of answers the export's thread has taken come back with later cuts, for the next answers.
// A cut that is not JSON is answered as malformed (the reader rewinds to a wrong guess, or fails
// the read); a cut that cannot be worked otherwise is answered with its error; anything else that
// breaks ends the thread, which the pool reports as EXPORT_THREAD_FAILED.

import { parentPort, workerData } from 'node:worker_threads';
import { measuredMemory } from '../pipeline/group-memory.js';
import { JsonArrayScanError } from '../wfm/json-array-scan-error.js';
import type { NumberedRequest } from './answering-thread.js';
import { CutWorker, type CutWorkSetup } from './cut-work.js';
import type { FromShiftThread, ToShiftThread } from './shift-threads.js';

const port = parentPort;
if (port === null) throw new Error('shift-thread-entry runs only as a worker thread');
const worker = new CutWorker(workerData as CutWorkSetup);

port.on('message', ({ seq, request: { bytes, start, end, reuse } }: NumberedRequest<ToShiftThread>) => {
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
    const worked = worker.work(cut);
    answer = { seq, bytes, worked, threadBytes: measuredMemory() };
    transfer.push(worked.buffer);
  } catch (error) {
    answer =
      error instanceof JsonArrayScanError && error.kind === 'malformed'
        ? { seq, bytes, malformed: error.message }
        : { seq, bytes, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer, transfer);
});
