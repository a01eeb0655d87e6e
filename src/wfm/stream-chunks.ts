// A byte stream's chunks one at a time, as they were pushed. A Readable's own async iterator reads
// all it has buffered at once, joined into one new buffer: behind undici's 2 MiB high-water mark
// (wfm-transport.ts) that was a copy of the whole report, in buffers of up to 2 MiB, each of which
// the scanner then cut into some 38 cuts at once (docs/performance.md, "Buffers that die old").
// Here the stream flows into a short queue and pauses while the queue is full; the stream's own
// buffer still fills from the socket meanwhile, as before.

import { finished, type Readable } from 'node:stream';

/** Chunks taken from the stream ahead of the reader before it is paused. */
const QUEUED_CHUNKS = 2;

export class StreamChunks implements AsyncIterator<Buffer, undefined> {
  readonly #stream: Readable;
  readonly #queue: Buffer[] = [];
  #ended = false;
  /** What broke the stream (its error, or a close before its end), once it has. */
  #failure: { readonly error: unknown } | undefined;
  #wake: (() => void) | undefined;
  readonly #onData = (chunk: Buffer): void => {
    this.#queue.push(chunk);
    if (this.#queue.length >= QUEUED_CHUNKS) this.#stream.pause();
    this.#wakeReader();
  };

  constructor(stream: Readable) {
    this.#stream = stream;
    stream.on('data', this.#onData);
    finished(stream, { writable: false }, (error) => {
      if (error !== undefined && error !== null) this.#failure = { error };
      this.#ended = true;
      this.#wakeReader();
    });
  }

  /**
   * The next chunk; done at the stream's end. Throws what broke the stream (as the stream's own
   * iterator does, a close before the end is ERR_STREAM_PREMATURE_CLOSE) once the chunks that
   * came before it are read.
   */
  async next(): Promise<IteratorResult<Buffer, undefined>> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        if (this.#queue.length < QUEUED_CHUNKS && !this.#ended) this.#stream.resume();
        return { value: chunk, done: false };
      }
      if (this.#failure !== undefined) throw this.#failure.error;
      if (this.#ended) return { value: undefined, done: true };
      this.#stream.resume();
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Stops taking chunks: the stream is left to whoever reads it on (undici's dump()). */
  detach(): void {
    this.#stream.off('data', this.#onData);
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
