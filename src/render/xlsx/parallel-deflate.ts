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
import { constants, crc32, createDeflateRaw, type ZlibOptions } from 'node:zlib';

/** Input bytes per block: large enough that a block's flush marker and lost matches cost ~0.01%. */
export const DEFLATE_BLOCK_BYTES = 1 << 20;
/** Deflate's window: what a block may refer back to. */
const WINDOW_BYTES = 32 * 1024;
/** A part's first block starts at least this large and doubles up to a whole block as it fills. */
const MIN_FIRST_BLOCK_BYTES = 64 * 1024;
/** Least output buffer a block is deflated into. */
const OUTPUT_CHUNK_BYTES = 64 * 1024;

/**
 * A block's output as zlib gives it, in pieces of its output buffer: not zlib.deflateRaw, which
 * joins them into one more buffer, a copy of the whole sheet's output.
 */
function deflateBlock(block: Buffer, options: ZlibOptions): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    createDeflateRaw(options)
      .on('data', (piece: Buffer) => out.push(piece))
      .once('end', () => resolve(out))
      .once('error', reject)
      .end(block);
  });
}

export interface ParallelDeflateOptions {
  /** zlib level, 0-9. */
  readonly level: number;
  /** Blocks being deflated at once (libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says). */
  readonly parallel: number;
  /** Input bytes per block; default DEFLATE_BLOCK_BYTES. */
  readonly blockBytes?: number;
  /** Called with each write once its bytes are copied: its writer may reuse them (sheet-blocks.ts). */
  readonly taken?: (bytes: Buffer) => void;
}

/** A block being deflated: its input (reused once its output is out) and its output to come. */
interface BlockInFlight {
  readonly block: Buffer;
  readonly deflated: Promise<Buffer[]>;
}

export class ParallelDeflateCrc32 extends Transform {
  readonly #level: number;
  readonly #parallel: number;
  readonly #blockBytes: number;
  readonly #taken: ((bytes: Buffer) => void) | undefined;
  #crc = 0;
  #rawSize = 0;
  #compressedSize = 0;
  /** The block being filled, and how much of it is; none before the first byte after a block. */
  #block: Buffer | undefined;
  #filled = 0;
  /** Whole blocks deflated and put out, ready to be filled again. */
  readonly #spareBlocks: Buffer[] = [];
  /** The last WINDOW_BYTES (or fewer) of the previous block: the next block's dictionary. */
  #window: Buffer | undefined;
  #windowBytes = 0;
  /** Blocks being deflated, oldest first: their output goes out in this order. */
  readonly #inFlight: BlockInFlight[] = [];

  constructor(options: ParallelDeflateOptions) {
    super();
    this.#level = options.level;
    this.#parallel = Math.max(1, Math.floor(options.parallel));
    this.#blockBytes = options.blockBytes ?? DEFLATE_BLOCK_BYTES;
    this.#taken = options.taken;
    if (!Number.isInteger(this.#blockBytes) || this.#blockBytes < 1)
      throw new RangeError(`blockBytes must be a positive whole number, not ${this.#blockBytes}`);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#crc = crc32(chunk, this.#crc);
    this.#rawSize += chunk.length;
    this.#take(chunk).then(() => {
      this.#taken?.(chunk);
      callback();
    }, callback);
  }

  override _flush(callback: TransformCallback): void {
    this.#start(this.#filled, constants.Z_FINISH);
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

  /**
   * Copies `chunk` into blocks, each deflated once full. The bytes are copied before the write is
   * acknowledged, as its writer may then reuse them. Blocks are reused once their output is out:
   * a fresh megabyte (and a copy of each write held until then) per block had kept the export's
   * thread's collector marking its whole heap every ~30 MB of sheet, as V8 counts the bytes of
   * buffers that die old against the heap's limit.
   */
  async #take(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length;) {
      const block = this.#room(chunk.length - at);
      const copied = chunk.copy(block, this.#filled, at);
      this.#filled += copied;
      at += copied;
      if (this.#filled === this.#blockBytes) {
        this.#start(this.#blockBytes, constants.Z_SYNC_FLUSH);
        await this.#emitUntil(this.#parallel - 1);
      }
    }
  }

  /**
   * The block being filled, with room for `bytes` more or up to its end. A part's first block
   * grows to the size it needs, so that a small part (most of a workbook's) takes no megabyte;
   * later blocks are whole ones, spare when there is one.
   */
  #room(bytes: number): Buffer {
    const needed = Math.min(this.#blockBytes, this.#filled + bytes);
    const block = this.#block;
    if (block !== undefined && block.length >= needed) return block;
    const first = this.#window === undefined;
    const grown =
      this.#spareBlocks.pop() ??
      Buffer.allocUnsafeSlow(
        first
          ? Math.min(this.#blockBytes, Math.max(needed, 2 * (block?.length ?? 0), MIN_FIRST_BLOCK_BYTES))
          : this.#blockBytes,
      );
    if (block !== undefined) block.copy(grown, 0, 0, this.#filled);
    this.#block = grown;
    return grown;
  }

  /** Starts deflating the block being filled, its first `bytes`; the next block starts empty. */
  #start(bytes: number, finishFlush: number): void {
    const block = this.#block ?? Buffer.alloc(0);
    const input = block.subarray(0, bytes);
    const options: ZlibOptions = {
      level: this.#level,
      finishFlush,
      // Most blocks deflate to one output buffer this size, each buffer filled being a trip back
      // to this thread; a block that deflates to more takes more. The bytes do not depend on it.
      chunkSize: Math.max(OUTPUT_CHUNK_BYTES, Math.ceil(this.#blockBytes / 4)),
      // zlib copies the dictionary as the stream starts, so the window can be overwritten below.
      ...(this.#window === undefined ? {} : { dictionary: this.#window.subarray(0, this.#windowBytes) }),
    };
    const deflated = deflateBlock(input, options);
    // Its failure is met where it is awaited; until then it must not count as unhandled.
    deflated.catch(() => undefined);
    this.#inFlight.push({ block, deflated });
    this.#window ??= Buffer.allocUnsafeSlow(WINDOW_BYTES);
    this.#windowBytes = block.copy(this.#window, 0, Math.max(0, bytes - WINDOW_BYTES), bytes);
    this.#block = undefined;
    this.#filled = 0;
  }

  /** Puts out the oldest blocks' output until at most `left` are in flight. */
  async #emitUntil(left: number): Promise<void> {
    while (this.#inFlight.length > left) {
      const { block, deflated } = this.#inFlight.shift() as BlockInFlight;
      const out = await deflated;
      if (block.length === this.#blockBytes) this.#spareBlocks.push(block);
      for (const piece of out) {
        this.#compressedSize += piece.length;
        this.push(piece);
      }
    }
  }
}
