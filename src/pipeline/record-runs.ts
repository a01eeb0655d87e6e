// Sorted runs of variable-length records in one temp file, for the groups that spill past the
// memory budget (group-spill.ts): records are appended a run at a time through a 1 MiB buffer and
// read back run by run, a block at a time, each record behind its byte length. A record holds
// numbers (float64) and texts (UTF-8 behind their length, or null).

import type { TempFile, TempFolder } from '../temp-file.js';
import { spillIo } from './spill-error.js';

const WRITE_BUFFER_BYTES = 1 << 20;
const NULL_TEXT = 0xffff_ffff;

/** Bytes [start, end) of a run in its file. */
export interface RunRange {
  readonly start: number;
  readonly end: number;
}

/** Builds one record at a time, then hands it to a RunFile. */
export class RecordBuilder {
  buffer = Buffer.allocUnsafe(4096);
  length = 0;

  clear(): void {
    this.length = 0;
  }

  number(value: number): void {
    this.#room(8);
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  text(value: string | null): void {
    if (value === null) {
      this.#room(4);
      this.buffer.writeUInt32LE(NULL_TEXT, this.length);
      this.length += 4;
      return;
    }
    this.#room(4 + value.length * 3);
    const bytes = this.buffer.write(value, this.length + 4, 'utf8');
    this.buffer.writeUInt32LE(bytes, this.length);
    this.length += 4 + bytes;
  }

  #room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** Sorted runs that can be read back, each from its start, as often as needed. */
export interface ReadableRuns {
  readonly runs: readonly RunRange[];
  reader(run: RunRange): RecordReader;
}

/** The runs of a file written elsewhere (another thread's RunFile), read here. */
export class FileRuns implements ReadableRuns {
  readonly #file: TempFile;
  readonly runs: readonly RunRange[];

  constructor(file: TempFile, runs: readonly RunRange[]) {
    this.#file = file;
    this.runs = runs;
  }

  reader(run: RunRange): RecordReader {
    return new RecordReader(this.#file, run);
  }
}

/** A temp file of runs: append records, end each run, then read any run back. */
export class RunFile implements ReadableRuns {
  readonly #file: TempFile;
  readonly #buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  #buffered = 0;
  #runStart = 0;
  readonly runs: RunRange[] = [];

  constructor(folder: TempFolder, label: string) {
    this.#file = spillIo('written to', `in ${folder.directory}`, () => folder.create(label));
  }

  /** The file's path, and the bytes its ended runs fill: where another thread reads them (FileRuns). */
  get path(): string {
    return this.#file.path;
  }

  get bytes(): number {
    return this.#file.bytes;
  }

  /** Appends a record to the current run. */
  append(record: RecordBuilder): void {
    this.appendBytes(record.buffer, 0, record.length);
  }

  /** Appends a record built earlier, bytes[start, start + length), to the current run. */
  appendBytes(bytes: Buffer, start: number, length: number): void {
    const need = 4 + length;
    if (this.#buffered + need > this.#buffer.length) this.#flush();
    if (need > this.#buffer.length) {
      const head = Buffer.allocUnsafe(4);
      head.writeUInt32LE(length, 0);
      this.#write(head, 4);
      this.#write(bytes.subarray(start, start + length), length);
      return;
    }
    this.#buffer.writeUInt32LE(length, this.#buffered);
    bytes.copy(this.#buffer, this.#buffered + 4, start, start + length);
    this.#buffered += need;
  }

  /** Ends the current run (an empty one is not kept). */
  endRun(): void {
    this.#flush();
    const end = this.#file.bytes;
    if (end > this.#runStart) this.runs.push({ start: this.#runStart, end });
    this.#runStart = end;
  }

  reader(run: RunRange): RecordReader {
    return new RecordReader(this.#file, run);
  }

  #flush(): void {
    if (this.#buffered === 0) return;
    this.#write(this.#buffer, this.#buffered);
    this.#buffered = 0;
  }

  #write(bytes: Buffer, length: number): void {
    spillIo('written to', this.#file.path, () => this.#file.append(bytes, length));
  }
}

const READ_BLOCK_BYTES = 64 * 1024;

/** Walks the records of one run; `next()` moves to the next one, then number() and text() read it. */
export class RecordReader {
  readonly #file: TempFile;
  #block = Buffer.allocUnsafe(READ_BLOCK_BYTES);
  /** File position of the byte after the block's bytes. */
  #next: number;
  readonly #end: number;
  #filled = 0;
  /** Where the current record's next field is, and where it ends. */
  #at = 0;
  #recordEnd = 0;

  constructor(file: TempFile, run: RunRange) {
    this.#file = file;
    this.#next = run.start;
    this.#end = run.end;
  }

  /** Moves to the next record; false at the end of the run. */
  next(): boolean {
    this.#at = this.#recordEnd;
    if (!this.#ensure(4)) return false;
    const length = this.#block.readUInt32LE(this.#at);
    this.#at += 4;
    if (!this.#ensure(length)) throw new Error(`${this.#file.path}: a record is cut short`);
    this.#recordEnd = this.#at + length;
    return true;
  }

  number(): number {
    const value = this.#block.readDoubleLE(this.#at);
    this.#at += 8;
    return value;
  }

  text(): string | null {
    const length = this.#block.readUInt32LE(this.#at);
    this.#at += 4;
    if (length === NULL_TEXT) return null;
    const value = this.#block.toString('utf8', this.#at, this.#at + length);
    this.#at += length;
    return value;
  }

  /** Makes `bytes` bytes from #at available in the block; false when the run has no more. */
  #ensure(bytes: number): boolean {
    if (this.#at + bytes <= this.#filled) return true;
    const kept = this.#filled - this.#at;
    const remaining = this.#end - this.#next;
    if (kept + remaining < bytes) return false;
    if (bytes > this.#block.length) {
      const grown = Buffer.allocUnsafe(bytes);
      this.#block.copy(grown, 0, this.#at, this.#filled);
      this.#block = grown;
    } else {
      this.#block.copy(this.#block, 0, this.#at, this.#filled);
    }
    const length = Math.min(this.#block.length - kept, remaining);
    spillIo('read from', this.#file.path, () =>
      this.#file.readInto(this.#block.subarray(kept), length, this.#next),
    );
    this.#next += length;
    this.#filled = kept + length;
    this.#recordEnd -= this.#at;
    this.#at = 0;
    return true;
  }
}
