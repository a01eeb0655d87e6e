// The buffers a CutWorker carves its worked cuts from (cut-work.ts): each worked cut's arrays lie
// in one buffer of its own, which moves to the export's thread as one and, once the export's
// thread has taken the cut's rows, comes back (ShiftThreads.reuse) to be carved again for a later
// cut. A fresh buffer a cut was ~250 KiB outside the V8 heap that the export's thread let go of
// only at its next full collection: at 3M rows 87–99 MB of them waited (bench/memory-profile.ts).

/** Buffers are made this much larger than asked, in steps of this size, so that most fit again. */
const HEADROOM = 1 / 8;
const STEP = 64 * 1024;

export class SpareBuffers {
  readonly #spare: ArrayBuffer[] = [];
  readonly #keep: number;

  /** Keeps `keep` spare buffers at most. */
  constructor(keep: number) {
    this.#keep = keep;
  }

  /** Buffers kept now, for tests. */
  get size(): number {
    return this.#spare.length;
  }

  /** The smallest spare buffer of `bytes` or more, else a new one with room to spare. */
  take(bytes: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.#spare.length; i++) {
      const length = (this.#spare[i] as ArrayBuffer).byteLength;
      if (length >= bytes && (best < 0 || length < (this.#spare[best] as ArrayBuffer).byteLength)) best = i;
    }
    if (best >= 0) return this.#spare.splice(best, 1)[0] as ArrayBuffer;
    const size = Math.ceil((bytes * (1 + HEADROOM)) / STEP) * STEP || STEP;
    // Not from Node's shared pool: a buffer of its own moves between threads.
    return Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer;
  }

  /** A buffer no one reads any more; when as many are kept, the larger ones stay. */
  give(buffer: ArrayBuffer): void {
    // A buffer moved to another thread since is empty here.
    if (buffer.byteLength === 0) return;
    if (this.#spare.length < this.#keep) {
      this.#spare.push(buffer);
      return;
    }
    let smallest = 0;
    for (let i = 1; i < this.#spare.length; i++)
      if ((this.#spare[i] as ArrayBuffer).byteLength < (this.#spare[smallest] as ArrayBuffer).byteLength)
        smallest = i;
    if ((this.#spare[smallest] as ArrayBuffer).byteLength < buffer.byteLength) this.#spare[smallest] = buffer;
  }
}
