// Streams one table (a header of column names, then one record per row) as CSV into a Writable:
// UTF-8, optional BOM, a decimal point or comma, RFC 4180 quoting with CRLF records (csv-line-encoder.ts), cells formatted
// by cell-text.ts with the formula guard. Records are encoded into ~64 KiB chunks before they
// reach the sink (one write per ~130 shift rows), so stream overhead is paid per chunk, not per row;
// each record's cells are written straight into the chunk as UTF-8 (cell-bytes.ts), with no string
// made per cell or per record (docs/performance.md, "Where an export thread's CPU goes").
//
// Backpressure: write() returns undefined while the sink keeps up, and a promise that settles on
// 'drain' (or rejects when the sink fails or closes) when it does not — so the caller's loop
// allocates no promise per row: `const wait = writer.write(row); if (wait) await wait;`.

import type { Writable } from 'node:stream';
import type { CellValue, Column } from '../../domain/column.js';
import { ShiftExportError } from '../../errors.js';
import { cellWriter, type CellWriter } from '../cell-bytes.js';
import { cellFormatter, type CellFormatter, type DecimalSeparator } from '../cell-text.js';
import { startsLikeFormula } from '../formula-guard.js';
import { TableSink } from '../table-sink.js';
import { CsvLineEncoder, writeCsvTextField, type CsvDelimiter } from './csv-line-encoder.js';

export interface CsvTableOptions {
  readonly delimiter: CsvDelimiter;
  /** Start with a UTF-8 byte order mark, so Excel reads the file as UTF-8. */
  readonly bom: boolean;
  /** The decimal separator of number, decimal and rate columns; default `.`. */
  readonly decimal?: DecimalSeparator;
}

/** Bytes gathered before one write to the sink. */
export const CSV_CHUNK_BYTES = 64 * 1024;

// Room past the threshold, so that records are encoded straight into the chunk (UTF-8 takes at most
// 3 bytes per UTF-16 code unit); a record that might not fit goes after a flush, or alone.
const CHUNK_CAPACITY = CSV_CHUNK_BYTES + 32 * 1024;

const BOM = '\uFEFF';
const CR = 0x0d;
const LF = 0x0a;

/** records() keeps its scratch buffer up to this size. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

export interface CsvTableResult {
  /** Data records written (the header not counted). */
  readonly rows: number;
  /** Bytes written, BOM and header included. */
  readonly bytes: number;
}

/** The sink closed or failed before the table was complete. */
export class CsvSinkError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    // Whatever broke the sink (a full disk, an aborted upload) may be gone on the next attempt.
    super('CSV_SINK_FAILED', message, { retryable: true, cause });
  }
}

/** One table's records as CSV: each row's cells formatted, guarded, quoted and joined, as UTF-8 bytes. */
export class CsvRecordEncoder<R> {
  readonly #values: readonly ((row: R) => CellValue)[];
  /** Per column: its cells' writer (cell-bytes.ts); none for a text column, written here. */
  readonly #writers: readonly (CellWriter | undefined)[];
  /** Per column: cellFormatter, for a text column's value that is not a string (its error). */
  readonly #formatters: readonly CellFormatter[];
  readonly #delimiter: number;
  /** Where records() encodes before copying out: reused, so a cut costs no growing. */
  #scratch: Buffer | undefined;
  /** The header record, with the BOM when asked for. */
  readonly head: string;

  constructor(columns: readonly Column<R>[], options: CsvTableOptions) {
    const encoder = new CsvLineEncoder(options.delimiter);
    const cellOptions = { guardFormulas: true, decimalSeparator: options.decimal ?? '.' } as const;
    this.#values = columns.map((c) => c.value);
    this.#writers = columns.map((c) =>
      c.kind === 'text' ? undefined : cellWriter({ ...c, kind: c.kind }, cellOptions),
    );
    this.#formatters = columns.map((c) => cellFormatter(c, cellOptions));
    this.#delimiter = options.delimiter.charCodeAt(0);
    this.head = (options.bom ? BOM : '') + encoder.line(columns.map((c) => c.name));
  }

  /**
   * Writes `row`'s record, CRLF included, as UTF-8 into `target` at `at`; returns the offset after
   * it, or -1 when it might not fit (the bytes past `at` are then garbage).
   */
  encodeInto(row: R, target: Uint8Array, at: number): number {
    const values = this.#values;
    const writers = this.#writers;
    const delimiter = this.#delimiter;
    let i = at;
    for (let c = 0; c < values.length; c++) {
      if (c > 0) {
        if (i >= target.length) return -1;
        target[i++] = delimiter;
      }
      const value = (values[c] as (row: R) => CellValue)(row);
      const writer = writers[c];
      if (writer !== undefined) {
        i = writer(value, target, i);
      } else if (value !== null) {
        // A text cell: cellFormatter's guard decides the `'`, the field is quoted as it must be.
        const text = typeof value === 'string' ? value : (this.#formatters[c] as CellFormatter)(value);
        i = writeCsvTextField(text, startsLikeFormula(text), delimiter, target, i);
      }
      if (i < 0) return -1;
    }
    if (i + 2 > target.length) return -1;
    target[i] = CR;
    target[i + 1] = LF;
    return i + 2;
  }

  /**
   * The records of `rows` one after another, in a buffer of exactly their bytes (not from Node's
   * pool: it may be transferred to another thread); with `ends`, ends[k] is where record k ends.
   */
  records(rows: readonly R[], ends?: Int32Array): Buffer {
    const encoded = this.encodeAll(rows, ends);
    const records = Buffer.allocUnsafeSlow(encoded.length);
    encoded.copy(records);
    return records;
  }

  /**
   * As records(), in the encoder's own scratch buffer: valid until the encoder's next use, for a
   * caller that copies the bytes where they go (cut-work.ts, into a cut's one buffer).
   */
  encodeAll(rows: readonly R[], ends?: Int32Array): Buffer {
    let bytes = this.#scratch ?? Buffer.allocUnsafeSlow(CHUNK_CAPACITY);
    let used = 0;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k] as R;
      let end = this.encodeInto(row, bytes, used);
      while (end < 0) {
        const larger = Buffer.allocUnsafeSlow(bytes.length * 2);
        bytes.copy(larger, 0, 0, used);
        bytes = larger;
        end = this.encodeInto(row, bytes, used);
      }
      used = end;
      if (ends !== undefined) ends[k] = used;
    }
    // A scratch grown for a very long record is let go.
    this.#scratch = bytes.length <= MAX_SCRATCH_BYTES ? bytes : undefined;
    return bytes.subarray(0, used);
  }
}

export class CsvTableWriter<R> {
  readonly #encoder: CsvRecordEncoder<R>;
  readonly #sink: TableSink;
  #chunk: Buffer;
  #used: number;
  #rows = 0;
  #ended = false;

  constructor(columns: readonly Column<R>[], sink: Writable, options: CsvTableOptions) {
    this.#encoder = new CsvRecordEncoder(columns, options);
    this.#sink = new TableSink(sink, {
      output: 'the CSV output',
      whole: 'the table',
      error: (message, cause) => new CsvSinkError(message, cause),
    });
    const head = this.#encoder.head;
    this.#chunk = Buffer.allocUnsafe(Math.max(CHUNK_CAPACITY, head.length * 3));
    this.#used = this.#chunk.write(head);
  }

  /** Adds one row; a promise only when the caller should wait for the sink to drain. */
  write(row: R): Promise<void> | undefined {
    if (this.#ended) throw new Error('CsvTableWriter.write() after end()');
    this.#sink.throwIfBroken();
    this.#rows++;
    let ready = true;
    let end = this.#encoder.encodeInto(row, this.#chunk, this.#used);
    if (end < 0 && this.#used > 0) {
      // A record that might not fit goes after a flush…
      ready = this.#sendChunk();
      end = this.#encoder.encodeInto(row, this.#chunk, 0);
    }
    if (end < 0) {
      // …or alone, when it might not fit a whole chunk.
      ready = this.#sink.send(this.#encoder.records([row])) && ready;
      return ready ? this.#sink.pendingDrain : this.#sink.waitForDrain();
    }
    this.#used = end;
    if (this.#used >= CSV_CHUNK_BYTES) ready = this.#sendChunk() && ready;
    return ready ? this.#sink.pendingDrain : this.#sink.waitForDrain();
  }

  /**
   * Adds `rows` records already encoded by a CsvRecordEncoder of the same columns and options
   * (CsvRecordEncoder.records), as one buffer or as pieces one after another; the file is the same
   * as if each had been written. The bytes are copied: `records` is free again when this returns.
   */
  writeEncoded(records: Buffer | readonly Buffer[], rows: number): Promise<void> | undefined {
    if (this.#ended) throw new Error('CsvTableWriter.writeEncoded() after end()');
    this.#sink.throwIfBroken();
    this.#rows += rows;
    let ready = true;
    for (const piece of Buffer.isBuffer(records) ? [records] : records) {
      for (let at = 0; at < piece.length;) {
        // #used stays below CSV_CHUNK_BYTES between calls, and the chunk holds more.
        const copied = piece.copy(this.#chunk, this.#used, at, at + CSV_CHUNK_BYTES - this.#used);
        this.#used += copied;
        at += copied;
        if (this.#used >= CSV_CHUNK_BYTES) ready = this.#sendChunk() && ready;
      }
    }
    return ready ? this.#sink.pendingDrain : this.#sink.waitForDrain();
  }

  /** Writes what is left, ends the sink and resolves once it has finished. */
  async end(): Promise<CsvTableResult> {
    if (this.#ended) throw new Error('CsvTableWriter.end() called twice');
    this.#ended = true;
    this.#sink.throwIfBroken();
    if (this.#used > 0) this.#sendChunk();
    await this.#sink.end();
    return { rows: this.#rows, bytes: this.#sink.bytes };
  }

  /** Sends the chunk so far and starts a new one (the sink keeps the old one until written). */
  #sendChunk(): boolean {
    const full = this.#chunk.subarray(0, this.#used);
    this.#chunk = Buffer.allocUnsafe(CHUNK_CAPACITY);
    this.#used = 0;
    return this.#sink.send(full);
  }
}
