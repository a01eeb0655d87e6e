// The Parquet file of an export (format parquet): shifts.parquet, the exported shifts in the
// columns of shifts.csv, typed. Rows worked on export threads come converted (parquet-cells.ts);
// others as records. Loaded only when an export asks for it, as the workbook is.

import { CONTENT_TYPES } from '../destinations/content-headers.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import { ParquetTableWriter } from '../render/parquet/parquet-table-writer.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { ExportFile, FileOpener } from './export-files.js';
import type { ExportBatch, TableOutput } from './table-output.js';

export class ParquetOutput implements TableOutput {
  readonly #writer: ParquetTableWriter<ShiftRecord>;
  readonly #file: ExportFile;

  /** Opens shifts.parquet. */
  constructor(files: FileOpener) {
    this.#file = files.open('shifts.parquet', CONTENT_TYPES.parquet);
    this.#writer = new ParquetTableWriter(SHIFT_COLUMNS, this.#file.stream, {
      createdBy: `${TOOL_NAME} ${TOOL_VERSION}`,
    });
  }

  async write(batch: ExportBatch): Promise<void> {
    // Rows worked on export threads come as their values, converted there (cut-work.ts).
    const worked = batch.worked;
    if (worked !== undefined && worked.count > 0) {
      if (worked.parquet.length === 0)
        throw new Error('rows worked on export threads came without Parquet values');
      for (const { cells, first, end } of worked.parquet) await this.#writer.writeCells(cells, first, end);
    }
    for (const record of batch.shifts) {
      const wait = this.#writer.write(record);
      if (wait) await wait;
    }
  }

  async finish(): Promise<void> {
    this.#file.rows = (await this.#writer.end()).rows;
  }

  /** Nothing to let go of: ExportFiles destroys the file. */
  async abort(): Promise<void> {}
}
