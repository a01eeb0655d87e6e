// A Writable into a new file that is fsync'ed and closed before 'finish': when a pipeline into it
// resolves, the bytes are on the disk, not in the page cache, so publishing right after cannot
// expose a file that a power cut would empty. `wx`: never overwrite an existing file.

import { open, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

// Bytes buffered before write() asks the producer to wait. At the default 16 KiB every 64 KiB CSV
// chunk waited for its own write to reach the disk, and the export's thread sat idle meanwhile
// (docs/performance.md); with room for a few chunks, the writes overlap the encoding of the next ones.
const HIGH_WATER_BYTES = 1024 * 1024;

export class SyncedFileStream extends Writable {
  readonly path: string;
  #handle: FileHandle | undefined;

  constructor(path: string) {
    super({ highWaterMark: HIGH_WATER_BYTES });
    this.path = path;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    open(this.path, 'wx', 0o644).then(
      (handle) => {
        this.#handle = handle;
        callback();
      },
      (error: Error) => callback(error),
    );
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#writeAll([chunk]).then(() => callback(), callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.#writeAll(chunks.map((c) => c.chunk)).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle === undefined) return callback();
    handle
      .sync()
      .then(() => handle.close())
      .then(
        () => callback(),
        (error: Error) =>
          handle.close().then(
            () => callback(error),
            () => callback(error),
          ),
      );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle === undefined) return callback(error);
    handle.close().then(
      () => callback(error),
      () => callback(error),
    );
  }

  async #writeAll(buffers: Buffer[]): Promise<void> {
    const handle = this.#handle;
    if (handle === undefined) throw new Error(`${this.path} is not open`);
    let pending = buffers;
    // writev may write less than asked (e.g. at a signal); loop until everything is out.
    while (pending.length > 0) {
      const total = pending.reduce((sum, b) => sum + b.length, 0);
      const { bytesWritten } = await handle.writev(pending);
      if (bytesWritten >= total) return;
      let skip = bytesWritten;
      const rest: Buffer[] = [];
      for (const buffer of pending) {
        if (skip >= buffer.length) {
          skip -= buffer.length;
        } else {
          rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
          skip = 0;
        }
      }
      pending = rest;
    }
  }
}

/** fsync of a folder, so that the names created or renamed in it survive a crash. */
export async function syncFolder(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
