// The Parquet file of an export (format parquet): shifts.parquet, the exported shifts in the
// columns of shifts.csv, typed. Loaded only when an export asks for it, as the workbook is.

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
