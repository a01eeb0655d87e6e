// The threads that render exported shifts beside the export's own (EXPORT_THREADS − 1 of them):
// each takes batches in turn (round robin) and answers them in the order it got them; the export
// awaits each batch's answer in report order (shift-rows-output.ts).
//
// A thread that ends unexpectedly fails every batch still waiting with a retryable
// EXPORT_THREAD_FAILED, and the export fails before publishing anything; close() ends the threads
// however the export ended (answering-thread.ts).

import { AnsweringThread, RenderThreadFailedError, threadModule } from './answering-thread.js';
import type { RenderedShifts, RenderRequest, RenderSetup } from './shift-rendering.js';

export { RenderThreadFailedError, renderThreadStarted } from './answering-thread.js';

export type FromRenderThread =
  | { readonly seq: number; readonly rendered: RenderedShifts }
  | { readonly seq: number; readonly error: string };

type RenderThread = AnsweringThread<RenderRequest, FromRenderThread, RenderedShifts>;

function startRenderThread(setup: RenderSetup, index: number): RenderThread {
  return new AnsweringThread<RenderRequest, FromRenderThread, RenderedShifts>({
    entry: threadModule('render-thread-entry'),
    workerData: setup,
    name: `render thread ${index}`,
    closedMessage: 'the render threads were closed',
    settle(answer) {
      if (!('rendered' in answer))
        return new RenderThreadFailedError(
          `render thread ${index} could not render a batch: ${answer.error}`,
        );
      const { csv, xlsx } = answer.rendered;
      // Buffers arrive as plain Uint8Arrays.
      return {
        csv: csv && Buffer.from(csv.buffer, csv.byteOffset, csv.byteLength),
        xlsx: xlsx && Buffer.from(xlsx.buffer, xlsx.byteOffset, xlsx.byteLength),
      };
    },
  });
}

export class RenderPool {
  readonly #threads: RenderThread[];
  #next = 0;

  /** Starts `threads` render threads (at least one). */
  constructor(threads: number, setup: RenderSetup) {
    this.#threads = Array.from({ length: Math.max(1, threads) }, (_, i) => startRenderThread(setup, i + 1));
  }

  get size(): number {
    return this.#threads.length;
  }

  /** Renders one batch on the next thread in turn. */
  render(request: RenderRequest): Promise<RenderedShifts> {
    const thread = this.#threads[this.#next++ % this.#threads.length] as RenderThread;
    return thread.ask(request, undefined);
  }

  /** Ends every thread; batches still waiting fail. */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
