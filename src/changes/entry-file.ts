// A temp file of row-hashes entries: the row-hashes.bin header, then 16-byte entries appended a
// block at a time, and read back a block at a time by any number of readers. Row fingerprints spill
// here so that an export's memory does not grow with its rows. The file itself is a TempFile
// (synchronous, positional I/O: see temp-file.ts); appends happen inside the CSV stream's
// transform, one block of a couple of MiB now and then.

import type { Readable } from 'node:stream';
import { TempFile } from '../temp-file.js';
import { ENTRY_BYTES, ROW_HASHES_MAGIC } from './row-hashes-format.js';

const HEADER_BYTES = ROW_HASHES_MAGIC.length;

export class EntryFile {
  readonly path: string;
  readonly #file: TempFile;
  #entries = 0;

  /** Creates the file (header only) in `directory`; `label` goes into its name. */
  constructor(directory: string, label: string) {
    const file = TempFile.create(directory, label);
    try {
      file.append(ROW_HASHES_MAGIC, HEADER_BYTES);
    } catch (error) {
      // Nobody holds this object yet to dispose of it.
      file.dispose();
      throw error;
    }
    this.#file = file;
    this.path = file.path;
  }

  get entries(): number {
    return this.#entries;
  }

  /** The file's length: header and entries. */
  get bytes(): number {
    return HEADER_BYTES + this.#entries * ENTRY_BYTES;
  }

  /** Appends the first `entries` entries of `source`. */
  append(source: Buffer, entries: number): void {
    this.#file.append(source, entries * ENTRY_BYTES);
    this.#entries += entries;
  }

  /** Reads entries [from, to) in order, `blockBytes` at a time. */
  reader(from: number, to: number, blockBytes: number): EntryReader {
    return new EntryReader(
      this,
      HEADER_BYTES + from * ENTRY_BYTES,
      HEADER_BYTES + to * ENTRY_BYTES,
      blockBytes,
    );
  }

  /** The whole file (header and entries) as a stream of its own. */
  stream(): Readable {
    return this.#file.stream();
  }

  /** Fills target[0, length) from `position`; for EntryReader. */
  readInto(target: Buffer, length: number, position: number): void {
    this.#file.readInto(target, length, position);
  }

  /** Closes and removes the file; safe to call more than once. */
  dispose(): Promise<void> {
    this.#file.dispose();
    return Promise.resolve();
  }
}

/** Walks a range of an EntryFile's entries in order, holding one block of them in memory. */
export class EntryReader {
  readonly #file: EntryFile;
  readonly #block: Buffer;
  readonly #end: number;
  /** File position of the next block. */
  #next: number;
  /** Where the current entry is in #block. */
  #offset = 0;
  /** Bytes of #block that hold entries. */
  #filled = 0;
  #id = 0;
  #done = false;

  constructor(file: EntryFile, start: number, end: number, blockBytes: number) {
    this.#file = file;
    this.#next = start;
    this.#end = end;
    const whole = Math.max(ENTRY_BYTES, blockBytes - (blockBytes % ENTRY_BYTES));
    this.#block = Buffer.allocUnsafe(Math.min(whole, end - start));
    this.#fill();
  }

  /** True once every entry has been passed. */
  get done(): boolean {
    return this.#done;
  }

  /** The current entry's id (while not done). */
  get id(): number {
    return this.#id;
  }

  /** Entries from the current one to the end. */
  get remaining(): number {
    return (this.#end - this.#next + this.#filled - this.#offset) / ENTRY_BYTES;
  }

  /** Moves to the next entry. */
  advance(): void {
    this.#offset += ENTRY_BYTES;
    if (this.#offset < this.#filled) this.#id = this.#block.readDoubleLE(this.#offset);
    else this.#fill();
  }

  /** Whether the current entry's hash equals the 8 bytes of `other` at `at`. */
  hashEquals(other: Buffer, at: number): boolean {
    const offset = this.#offset;
    return this.#block.compare(other, at, at + 8, offset + 8, offset + ENTRY_BYTES) === 0;
  }

  /** Copies the current entry into `target` at `at`. */
  copyTo(target: Buffer, at: number): void {
    this.#block.copy(target, at, this.#offset, this.#offset + ENTRY_BYTES);
  }

  #fill(): void {
    const length = Math.min(this.#block.length, this.#end - this.#next);
    this.#offset = 0;
    if (length === 0) {
      this.#filled = 0;
      this.#done = true;
      return;
    }
    this.#file.readInto(this.#block, length, this.#next);
    this.#next += length;
    this.#filled = length;
    this.#id = this.#block.readDoubleLE(0);
  }
}
