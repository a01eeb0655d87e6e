// Temp files an export keeps while it runs, in one folder (TMPDIR, else /tmp), all removed when it
// ends however it ends: a TempFolder creates them and its dispose() removes every one it created.
// Synchronous I/O on purpose: its callers append a block now and then and read in loops that walk
// records one by one, where a promise per block would cost more than it saves. Positional reads
// and writes on one descriptor, so several readers of one file do not disturb each other.

import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export class TempFile {
  readonly path: string;
  #fd: number | undefined;
  #bytes = 0;

  /** Creates an empty file in `directory`; `label` goes into its name. */
  constructor(directory: string, label: string) {
    this.path = join(directory, `shift-export-${label}-${randomUUID()}.bin`);
    // 'wx+': never write into a file that someone else created under this name; readable too.
    this.#fd = openSync(this.path, 'wx+', 0o600);
  }

  /** Bytes appended so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends source[0, length). */
  append(source: Uint8Array, length: number): void {
    const fd = this.#open();
    let done = 0;
    while (done < length) done += writeSync(fd, source, done, length - done, this.#bytes + done);
    this.#bytes += length;
  }

  /** Fills target[0, length) from `position`; the file must hold those bytes. */
  readInto(target: Uint8Array, length: number, position: number): void {
    const fd = this.#open();
    let done = 0;
    while (done < length) {
      const read = readSync(fd, target, done, length - done, position + done);
      if (read === 0) throw new Error(`${this.path} ended at byte ${position + done}`);
      done += read;
    }
  }

  /** The whole file as a stream of its own. */
  stream(): Readable {
    this.#open();
    return createReadStream(this.path);
  }

  /** Closes and removes the file; safe to call more than once. */
  dispose(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    closeSync(fd);
    rmSync(this.path, { force: true });
  }

  #open(): number {
    // A bug guard: after close() the number may already name another file.
    if (this.#fd === undefined) throw new Error(`${this.path} was used after dispose()`);
    return this.#fd;
  }
}

/** Where an export's temp files go, and the one place that removes them all. */
export class TempFolder {
  readonly directory: string;
  readonly #files = new Set<TempFile>();

  constructor(directory: string) {
    this.directory = directory;
  }

  create(label: string): TempFile {
    const file = new TempFile(this.directory, label);
    this.#files.add(file);
    return file;
  }

  /** Removes one file now (it would be removed by dispose() anyway). */
  remove(file: TempFile): void {
    file.dispose();
    this.#files.delete(file);
  }

  /** Removes every file created here; safe to call more than once. */
  dispose(): void {
    for (const file of this.#files) file.dispose();
    this.#files.clear();
  }
}
