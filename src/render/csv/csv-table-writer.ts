// Streams one table (a header of column names, then one record per row) as CSV into a Writable:
// UTF-8, optional BOM, a decimal point or comma, RFC 4180 quoting with CRLF records (csv-line-encoder.ts), cells formatted
// by cell-text.ts with the formula guard. Records are encoded into ~64 KiB chunks before they
// reach the sink (one write per ~130 shift rows), so stream overhead is paid per chunk, not per row;
// each record is joined into one string and UTF-8-encoded into the chunk at once, because
// encoding one 64 KiB string would first flatten a rope of thousands of parts (docs/performance.md).
//
// Backpressure: write() returns undefined while the sink keeps up, and a promise that settles on
// 'drain' (or rejects when the sink fails or closes) when it does not — so the caller's loop
// allocates no promise per row: `const wait = writer.write(row); if (wait) await wait;`.

import type { Writable } from 'node:stream';
import type { CellValue, Column } from '../../domain/column.js';
import { ShiftExportError } from '../../errors.js';
import { cellFormatter, kindTextMayNeedQuotes, type DecimalSeparator } from '../cell-text.js';
import { TableSink } from '../table-sink.js';
import { CSV_RECORD_DELIMITER, CsvLineEncoder, type CsvDelimiter } from './csv-line-encoder.js';

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

/** One table's records as CSV text: each row's cells formatted, guarded, quoted and joined. */
export class CsvRecordEncoder<R> {
  readonly #values: readonly ((row: R) => CellValue)[];
  /** Per column: value -> the field as it appears in the file (formatted, guarded, quoted). */
  readonly #fields: readonly ((value: CellValue) => string)[];
  readonly #delimiter: string;
  readonly #cells: string[];
  /** The header record, with the BOM when asked for. */
  readonly head: string;

  constructor(columns: readonly Column<R>[], options: CsvTableOptions) {
    const encoder = new CsvLineEncoder(options.delimiter);
    this.#values = columns.map((c) => c.value);
    this.#fields = columns.map((c) => {
      const format = cellFormatter(c, { guardFormulas: true, decimalSeparator: options.decimal ?? '.' });
      return kindTextMayNeedQuotes(c.kind) ? (value: CellValue) => encoder.field(format(value)) : format;
    });
    this.#delimiter = options.delimiter;
    this.#cells = columns.map(() => '');
    this.head = (options.bom ? BOM : '') + encoder.line(columns.map((c) => c.name));
  }

  /** One record, CRLF included. */
  record(row: R): string {
    const values = this.#values;
    const fields = this.#fields;
    const cells = this.#cells;
    for (let i = 0; i < values.length; i++) {
      cells[i] = (fields[i] as (value: CellValue) => string)((values[i] as (row: R) => CellValue)(row));
    }
    return cells.join(this.#delimiter) + CSV_RECORD_DELIMITER;
  }

  /** The records of `rows`, UTF-8 encoded one by one into one buffer (for another thread's writer). */
  records(rows: readonly R[]): Buffer {
    let bytes = Buffer.allocUnsafeSlow(CHUNK_CAPACITY);
    let used = 0;
    for (const row of rows) {
      const record = this.record(row);
      if (record.length * 3 > bytes.length - used) {
        const larger = Buffer.allocUnsafeSlow(Math.max(bytes.length * 2, used + record.length * 3));
        bytes.copy(larger, 0, 0, used);
        bytes = larger;
      }
      used += bytes.write(record, used);
    }
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
    return this.#append(this.#encoder.record(row));
  }

  /**
   * Adds `rows` records already encoded by a CsvRecordEncoder of the same columns and options
   * (CsvRecordEncoder.records); the file is the same as if each had been written. The bytes are
   * copied: `records` is free again when this returns.
   */
  writeEncoded(records: Buffer, rows: number): Promise<void> | undefined {
    if (this.#ended) throw new Error('CsvTableWriter.writeEncoded() after end()');
    this.#sink.throwIfBroken();
    this.#rows += rows;
    let ready = true;
    for (let at = 0; at < records.length;) {
      // #used stays below CSV_CHUNK_BYTES between calls, and the chunk holds more.
      const copied = records.copy(this.#chunk, this.#used, at, at + CSV_CHUNK_BYTES - this.#used);
      this.#used += copied;
      at += copied;
      if (this.#used >= CSV_CHUNK_BYTES) ready = this.#sendChunk() && ready;
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

  #append(record: string): Promise<void> | undefined {
    let ready = true;
    if (record.length * 3 > CHUNK_CAPACITY - this.#used) {
      if (this.#used > 0) ready = this.#sendChunk();
      if (record.length * 3 > CHUNK_CAPACITY) {
        ready = this.#sink.send(Buffer.from(record, 'utf8')) && ready;
        return ready ? this.#sink.pendingDrain : this.#sink.waitForDrain();
      }
    }
    this.#used += this.#chunk.write(record, this.#used);
    if (this.#used >= CSV_CHUNK_BYTES) ready = this.#sendChunk() && ready;
    return ready ? this.#sink.pendingDrain : this.#sink.waitForDrain();
  }

  /** Sends the chunk so far and starts a new one (the sink keeps the old one until written). */
  #sendChunk(): boolean {
    const full = this.#chunk.subarray(0, this.#used);
    this.#chunk = Buffer.allocUnsafe(CHUNK_CAPACITY);
    this.#used = 0;
    return this.#sink.send(full);
  }
}
