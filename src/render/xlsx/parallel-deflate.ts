// Deflates one zip entry in blocks at once, pigz's way, so that the sheet XML's compression is no
// longer one stream on one thread behind the rendering. The input is cut at fixed offsets (every
// `blockBytes`, whatever sizes the writes came in: the same input gives the same bytes, whatever
// the parallelism), and each block is raw-deflated on its own on libuv's thread pool, primed with
// the 32 KiB before it as its dictionary (so matches reach back across a cut, as one stream's
// would). Every block but the last ends with a sync flush (an empty stored block: byte-aligned and
// not final), the last with Z_FINISH, so the blocks concatenated are one valid deflate stream. The
// CRC-32 of the input runs on across the writes (zlib.crc32 with the previous value).
//
// It stands in for crc32-stream's DeflateCRC32Stream under the zip archiver (exceljs-adapter.ts):
// the same digest() and size() the archiver reads when the entry ends.

import { Transform, type TransformCallback } from 'node:stream';
import { constants, crc32, deflateRaw, type ZlibOptions } from 'node:zlib';

/** Input bytes per block: large enough that a block's flush marker and lost matches cost ~0.01%. */
export const DEFLATE_BLOCK_BYTES = 1 << 20;
/** Deflate's window: what a block may refer back to. */
const WINDOW_BYTES = 32 * 1024;

function deflateBlock(block: Buffer, options: ZlibOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    deflateRaw(block, options, (error, out) => (error === null ? resolve(out) : reject(error))),
  );
}

export interface ParallelDeflateOptions {
  /** zlib level, 0-9. */
  readonly level: number;
  /** Blocks being deflated at once (libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says). */
  readonly parallel: number;
  /** Input bytes per block; default DEFLATE_BLOCK_BYTES. */
  readonly blockBytes?: number;
}

export class ParallelDeflateCrc32 extends Transform {
  readonly #level: number;
  readonly #parallel: number;
  readonly #blockBytes: number;
  #crc = 0;
  #rawSize = 0;
  #compressedSize = 0;
  /** Input not yet cut into a block. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The last WINDOW_BYTES of the previous block: the next block's dictionary. */
  #window: Buffer | undefined;
  /** Blocks being deflated, oldest first: their output goes out in this order. */
  readonly #inFlight: Promise<Buffer>[] = [];

  constructor(options: ParallelDeflateOptions) {
    super();
    this.#level = options.level;
    this.#parallel = Math.max(1, Math.floor(options.parallel));
    this.#blockBytes = options.blockBytes ?? DEFLATE_BLOCK_BYTES;
    if (!Number.isInteger(this.#blockBytes) || this.#blockBytes < 1)
      throw new RangeError(`blockBytes must be a positive whole number, not ${this.#blockBytes}`);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#crc = crc32(chunk, this.#crc);
    this.#rawSize += chunk.length;
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    this.#cutBlocks().then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    this.#start(this.#takePending(this.#pendingBytes), constants.Z_FINISH);
    this.#emitUntil(0).then(() => callback(), callback);
  }

  /** The CRC-32 of the input so far, big-endian (as crc32-stream gives it). */
  digest(): Buffer {
    const checksum = Buffer.allocUnsafe(4);
    checksum.writeUInt32BE(this.#crc >>> 0, 0);
    return checksum;
  }

  /** Input bytes so far, or with `compressed` the bytes put out. */
  size(compressed = false): number {
    return compressed ? this.#compressedSize : this.#rawSize;
  }

  async #cutBlocks(): Promise<void> {
    while (this.#pendingBytes >= this.#blockBytes) {
      this.#start(this.#takePending(this.#blockBytes), constants.Z_SYNC_FLUSH);
      await this.#emitUntil(this.#parallel - 1);
    }
  }

  /**
   * The first `bytes` of the pending input, as one buffer of its own (a write is acknowledged
   * before its bytes are deflated, and its writer may then reuse them); the rest stays pending.
   */
  #takePending(bytes: number): Buffer {
    const all = Buffer.concat(this.#pending, this.#pendingBytes);
    const rest = all.subarray(bytes);
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingBytes = rest.length;
    return all.subarray(0, bytes);
  }

  #start(block: Buffer, finishFlush: number): void {
    const options: ZlibOptions = {
      level: this.#level,
      finishFlush,
      // One output buffer a block, not zlib's 16 KiB: each buffer filled is a trip back to this
      // thread. The bytes do not depend on it.
      chunkSize: Math.max(this.#blockBytes, 64 * 1024),
      ...(this.#window === undefined ? {} : { dictionary: this.#window }),
    };
    // A copy, so that the window does not keep the whole block alive.
    this.#window = Buffer.from(block.subarray(Math.max(0, block.length - WINDOW_BYTES)));
    const deflated = deflateBlock(block, options);
    // Its failure is met where it is awaited; until then it must not count as unhandled.
    deflated.catch(() => undefined);
    this.#inFlight.push(deflated);
  }

  /** Puts out the oldest blocks' output until at most `left` are in flight. */
  async #emitUntil(left: number): Promise<void> {
    while (this.#inFlight.length > left) {
      const out = await (this.#inFlight.shift() as Promise<Buffer>);
      this.#compressedSize += out.length;
      this.push(out);
    }
  }
}
