// Temp files an export keeps while it runs, in one folder (TMPDIR, else /tmp), all removed when it
// ends however it ends: a TempFolder creates them and its dispose() removes every one it created.
// Synchronous I/O on purpose: its callers append a block now and then and read in loops that walk
// records one by one, where a promise per block would cost more than it saves. Positional reads
// and writes on one descriptor, so several readers of one file do not disturb each other.
//
// The statistics' thread (statistics-thread.ts) writes its runs in a folder of its own inside the
// export's (TempFolder.folder); the export's thread opens the spilled summaries it hands over
// (TempFolder.open) and removes that folder, whole, when the export ends.

import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

export class TempFile {
  readonly path: string;
  #fd: number | undefined;
  #bytes = 0;
  #removed = false;

  /** Creates an empty file in `directory`; `label` goes into its name. */
  static create(directory: string, label: string): TempFile {
    const path = join(directory, `shift-export-${label}-${randomUUID()}.bin`);
    // 'wx+': never write into a file that someone else created under this name; readable too.
    return new TempFile(path, openSync(path, 'wx+', 0o600), 0);
  }

  /** Opens, to read, a file of `bytes` bytes that another thread of this export wrote. */
  static open(path: string, bytes: number): TempFile {
    return new TempFile(path, openSync(path, 'r'), bytes);
  }

  private constructor(path: string, fd: number, bytes: number) {
    this.path = path;
    this.#fd = fd;
    this.#bytes = bytes;
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
    if (this.#removed) return;
    this.close();
    this.#removed = true;
    rmSync(this.path, { force: true });
  }

  /** Closes the descriptor and keeps the file, for another thread to read; safe to call more than once. */
  close(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    closeSync(fd);
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
  readonly #folders: string[] = [];

  constructor(directory: string) {
    this.directory = directory;
  }

  create(label: string): TempFile {
    const file = TempFile.create(this.directory, label);
    this.#files.add(file);
    return file;
  }

  /** A file another thread wrote (in a folder() of this one), opened to read, removed with the rest. */
  open(path: string, bytes: number): TempFile {
    // Only a file in a folder made here for it: a path from elsewhere is a bug, never to be read.
    if (!this.#folders.includes(dirname(path)))
      throw new Error(`${path} is not in a folder of ${this.directory}`);
    const file = TempFile.open(path, bytes);
    this.#files.add(file);
    return file;
  }

  /** A new empty folder in this one, for another thread's files; removed, whole, by dispose(). */
  folder(label: string): string {
    const folder = mkdtempSync(join(this.directory, `shift-export-${label}-`));
    this.#folders.push(folder);
    return folder;
  }

  /** Removes one file now (it would be removed by dispose() anyway). */
  remove(file: TempFile): void {
    file.dispose();
    this.#files.delete(file);
  }

  /**
   * Closes every file's descriptor and keeps the files: another thread reads them, and the folder's
   * owner removes them (a folder() of its TempFolder).
   */
  close(): void {
    for (const file of this.#files) file.close();
  }

  /** Removes every file created or opened here, and every folder(); safe to call more than once. */
  dispose(): void {
    for (const file of this.#files) file.dispose();
    this.#files.clear();
    for (const folder of this.#folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  }
}
