// A byte stream's chunks as the reader takes them: each as it was pushed, or small ones joined.
// A Readable's own async iterator reads all it has buffered at once, joined into one new buffer:
// behind undici's 2 MiB high-water mark (wfm-transport.ts) that was a copy of the whole report in
// buffers of up to 2 MiB, each of which the scanner then cut into some 38 cuts at once
// (docs/performance.md, "Buffers that die old"). Here the stream flows into a short queue and is
// paused while the queue holds QUEUED_BYTES; its own buffer still fills from the socket meanwhile.
// Chunks under SMALL_CHUNK_BYTES (an upstream that writes a row at a time, a trickle) are joined
// with the small ones queued after them, so the reader is not called once for every few hundred
// bytes; a larger chunk is always handed out as it is.

import { finished, type Readable } from 'node:stream';

/** Bytes taken from the stream ahead of the reader before it is paused. */
const QUEUED_BYTES = 64 * 1024;
/** Chunks smaller than this are joined with the small ones queued after them, up to JOINED_BYTES. */
const SMALL_CHUNK_BYTES = 4 * 1024;
const JOINED_BYTES = 64 * 1024;

export class StreamChunks implements AsyncIterator<Buffer, undefined> {
  readonly #stream: Readable;
  readonly #queue: Buffer[] = [];
  #queuedBytes = 0;
  #ended = false;
  /** What broke the stream (its error, or a close before its end), once it has. */
  #failure: { readonly error: unknown } | undefined;
  #wake: (() => void) | undefined;
  readonly #onData = (chunk: Buffer): void => {
    this.#queue.push(chunk);
    this.#queuedBytes += chunk.length;
    if (this.#queuedBytes >= QUEUED_BYTES) this.#stream.pause();
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
      const chunk = this.#take();
      if (chunk !== undefined) {
        if (this.#queuedBytes < QUEUED_BYTES && !this.#ended) this.#stream.resume();
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

  /** The first queued chunk, joined with the small ones after it when it is small; none: nothing queued. */
  #take(): Buffer | undefined {
    const first = this.#queue[0];
    if (first === undefined) return undefined;
    let count = 1;
    let bytes = first.length;
    if (first.length < SMALL_CHUNK_BYTES) {
      for (let next = this.#queue[1]; next !== undefined; next = this.#queue[count]) {
        if (next.length >= SMALL_CHUNK_BYTES || bytes + next.length > JOINED_BYTES) break;
        bytes += next.length;
        count++;
      }
    }
    const taken = this.#queue.splice(0, count);
    this.#queuedBytes -= bytes;
    return count === 1 ? first : Buffer.concat(taken, bytes);
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
