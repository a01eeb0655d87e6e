// The body of a render thread (render-pool.ts starts it): renders the batches it is sent, in the
// order sent, and posts each result back with its buffers transferred. A request that cannot be
// rendered is answered with its error; anything else that breaks ends the thread, which the pool
// reports as EXPORT_THREAD_FAILED.

import { parentPort, workerData } from 'node:worker_threads';
import type { NumberedRequest } from './answering-thread.js';
import type { FromRenderThread } from './render-pool.js';
import { csvEncoderOf, renderShifts, type RenderRequest, type RenderSetup } from './shift-rendering.js';

const port = parentPort;
if (port === null) throw new Error('render-thread-entry runs only as a worker thread');
const setup = workerData as RenderSetup;
const csv = csvEncoderOf(setup);

port.on('message', (message: NumberedRequest<RenderRequest>) => {
  let answer: FromRenderThread;
  try {
    answer = { seq: message.seq, rendered: renderShifts(message.request, setup.divisions, csv) };
  } catch (error) {
    answer = { seq: message.seq, error: error instanceof Error ? error.message : String(error) };
  }
  const transfer: ArrayBuffer[] = [];
  if ('rendered' in answer) {
    for (const bytes of [answer.rendered.csv, answer.rendered.xlsx])
      if (bytes !== undefined) transfer.push(bytes.buffer as ArrayBuffer);
  }
  port.postMessage(answer, transfer);
});
