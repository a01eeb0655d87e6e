// Streams one table as a Parquet file into a Writable: rows are gathered column by column into a row
// group of PARQUET_ROW_GROUP_ROWS, which hyparquet-writer encodes (dictionary or plain pages,
// snappy, statistics) and we send to the sink at once; the footer follows the last group. Memory
// is one row group's values and bytes, whatever the number of rows (docs/performance.md has the figures
// and why hyparquet-writer).
//
// Backpressure as in CsvTableWriter: write() returns undefined while the sink keeps up, and a
// promise that settles on 'drain' (or rejects when the sink fails or closes) when it does not.

import type { Writable } from 'node:stream';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { CellValue, Column } from '../../domain/column.js';
import { ShiftExportError } from '../../errors.js';
import { TableSink } from '../table-sink.js';
import { ParquetCellReader, type ParquetCells } from './parquet-cells.js';
import { parquetColumn, type ParquetValue } from './parquet-columns.js';

/**
 * Rows in one row group. Readers split work by row group, so fewer is slower to scan, and the
 * writer holds one group in memory, so more is heavier; 10k rows of our 37 columns is ~2 MB encoded.
 */
export const PARQUET_ROW_GROUP_ROWS = 10_000;

export interface ParquetTableOptions {
  /** The file's `created_by`, e.g. `shift-export 0.1.0`. */
  readonly createdBy: string;
  /** Overrides PARQUET_ROW_GROUP_ROWS (tests write several groups from a few rows). */
  readonly rowGroupRows?: number;
}

export interface ParquetTableResult {
  readonly rows: number;
  readonly bytes: number;
}

/** The sink closed or failed before the file was complete. */
export class ParquetSinkError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    // Whatever broke the sink (a full disk, an aborted upload) may be gone on the next attempt.
    super('PARQUET_SINK_FAILED', message, { retryable: true, cause });
  }
}

/** hyparquet-writer's byte buffer, emptied into the sink after each row group and at the end. */
class SinkByteWriter extends ByteWriter {
  constructor(
    private readonly send: (bytes: Buffer) => boolean,
    private readonly waitForDrain: () => Promise<void>,
  ) {
    super(1 << 20);
  }

  flush(): Promise<void> | undefined {
    return this.send(this.#take()) ? undefined : this.waitForDrain();
  }

  /** The footer: the sink is ended right after, so nobody waits for it to drain. */
  override finish(): void {
    this.send(this.#take());
  }

  /** The bytes so far, copied out, because the buffer is written over from index 0 again. */
  #take(): Buffer {
    const bytes = Buffer.from(this.buffer.slice(0, this.index));
    this.index = 0;
    return bytes;
  }
}

export class ParquetTableWriter<R> {
  readonly #names: readonly string[];
  readonly #values: readonly ((row: R) => CellValue)[];
  readonly #converters: readonly ((value: CellValue) => ParquetValue)[];
  readonly #groupRows: number;
  readonly #sink: TableSink;
  readonly #cells: ParquetCellReader;
  readonly #parquet: ParquetWriter;
  #group: ParquetValue[][];
  #rows = 0;
  #ended = false;

  constructor(columns: readonly Column<R>[], sink: Writable, options: ParquetTableOptions) {
    const parquetColumns = columns.map((c) => parquetColumn(c));
    this.#names = columns.map((c) => c.name);
    this.#values = columns.map((c) => c.value);
    this.#converters = parquetColumns.map((c) => c.convert);
    this.#groupRows = options.rowGroupRows ?? PARQUET_ROW_GROUP_ROWS;
    this.#group = columns.map(() => []);
    this.#cells = new ParquetCellReader(columns);
    const tableSink = new TableSink(sink, {
      output: 'the Parquet output',
      whole: 'the file',
      error: (message, cause) => new ParquetSinkError(message, cause),
    });
    this.#sink = tableSink;
    const writer = new SinkByteWriter(
      (bytes) => tableSink.send(bytes),
      () => tableSink.waitForDrain(),
    );
    this.#parquet = new ParquetWriter({
      writer,
      schema: [{ name: 'root', num_children: columns.length }, ...parquetColumns.map((c) => c.element)],
      createdBy: options.createdBy,
    });
  }

  /** Adds one row; a promise only when the caller should wait for the sink to drain. */
  write(row: R): Promise<void> | undefined {
    if (this.#ended) throw new Error('ParquetTableWriter.write() after end()');
    this.#sink.throwIfBroken();
    const values = this.#values;
    const converters = this.#converters;
    const group = this.#group;
    for (let i = 0; i < values.length; i++) {
      const convert = converters[i] as (value: CellValue) => ParquetValue;
      (group[i] as ParquetValue[]).push(convert((values[i] as (row: R) => CellValue)(row)));
    }
    this.#rows++;
    if ((group[0] as ParquetValue[]).length < this.#groupRows) return this.#sink.pendingDrain;
    return this.#writeGroup() ?? this.#sink.pendingDrain;
  }

  /**
   * Adds rows first..end-1 of cells converted on another thread (parquet-cells.ts), as write()
   * would add their records: the row groups end where they would.
   */
  async writeCells(cells: ParquetCells, first: number, end: number): Promise<void> {
    if (this.#ended) throw new Error('ParquetTableWriter.writeCells() after end()');
    this.#sink.throwIfBroken();
    let from = first;
    while (from < end) {
      const group = this.#group;
      const to = Math.min(end, from + this.#groupRows - (group[0] as ParquetValue[]).length);
      for (let c = 0; c < group.length; c++) this.#cells.push(cells, c, from, to, group[c] as ParquetValue[]);
      this.#rows += to - from;
      from = to;
      if ((group[0] as ParquetValue[]).length >= this.#groupRows) {
        const wait = this.#writeGroup();
        if (wait) await wait;
      }
    }
    const wait = this.#sink.pendingDrain;
    if (wait) await wait;
  }

  /** Writes the last row group and the footer, ends the sink and resolves once it has finished. */
  async end(): Promise<ParquetTableResult> {
    if (this.#ended) throw new Error('ParquetTableWriter.end() called twice');
    this.#ended = true;
    this.#sink.throwIfBroken();
    const wait = this.#writeGroup();
    if (wait) await wait;
    this.#sink.throwIfBroken();
    void this.#parquet.finish();
    await this.#sink.end();
    return { rows: this.#rows, bytes: this.#sink.bytes };
  }

  /** Encodes the rows gathered so far as one row group (none when there are none). */
  #writeGroup(): Promise<void> | undefined {
    const group = this.#group;
    const size = (group[0] as ParquetValue[] | undefined)?.length ?? 0;
    if (size === 0) return undefined;
    this.#group = this.#names.map(() => []);
    const written = this.#parquet.write({
      columnData: this.#names.map((name, i) => ({ name, data: group[i] as ParquetValue[] })),
      rowGroupSize: size,
    });
    return written ?? undefined;
  }
}
