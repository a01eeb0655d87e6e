// A pass-through that counts and hashes what flows through it. Every destination puts one in
// front of its storage (the file writer, or as the very Body of an S3 upload), so the bytes and
// sha256 of a StoredFile are those of exactly the bytes that were stored, not of what a renderer
// believes it wrote.

import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

export interface StreamDigest {
  readonly bytes: number;
  /** Lower-case hex sha256. */
  readonly sha256: string;
}

export class HashingStream extends Transform {
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;
  #digest: StreamDigest | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#hash.update(chunk);
    this.#bytes += chunk.length;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.#digest = { bytes: this.#bytes, sha256: this.#hash.digest('hex') };
    callback();
  }

  /** Bytes seen so far (also before the end). */
  get bytesSeen(): number {
    return this.#bytes;
  }

  /** Size and hash of everything written; only once the stream has ended. */
  digest(): StreamDigest {
    if (this.#digest === undefined) throw new Error('HashingStream.digest() called before the stream ended');
    return this.#digest;
  }
}
