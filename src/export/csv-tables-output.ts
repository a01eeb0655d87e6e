// The CSV files of an export (format csv): shifts.csv, rejected.csv and, at the end, the five
// summaries (summary-tables.ts), each `.csv.gz` with CSV_COMPRESSION=gzip. The shifts' records
// reach shifts.csv through ShiftRowsOutput, which may have them rendered on a render thread; this
// output writes the rejected rows, ends both files, and writes the summaries once they are known.

import type { Writable } from 'node:stream';
import { CONTENT_TYPES } from '../destinations/content-headers.js';
import { REJECTED_COLUMNS, type RejectedRow } from '../domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import {
  csvContentEncoding,
  csvFileName,
  csvOutput,
  type CsvCompression,
} from '../render/csv/csv-compression.js';
import { CsvTableWriter, type CsvTableOptions } from '../render/csv/csv-table-writer.js';
import type { ExportFile, ExportFiles } from './export-files.js';
import type { ExportSettings } from './export-settings.js';
import { SUMMARY_TABLES } from './summary-tables.js';
import type { ExportBatch, ExportEnding, TableOutput } from './table-output.js';

/** How every CSV file of the export is written. */
export function csvTableOptions(settings: ExportSettings): CsvTableOptions {
  return { delimiter: settings.csvDelimiter, decimal: settings.csvDecimal, bom: settings.csvBom };
}

/** A CSV file of the export: where it is stored, and the stream its text goes into. */
interface CsvFile {
  readonly file: ExportFile;
  readonly output: Writable;
}

export class CsvTablesOutput implements TableOutput {
  /** shifts.csv: ShiftRowsOutput writes its records. */
  readonly shifts: CsvTableWriter<ShiftRecord>;
  readonly #rejected: CsvTableWriter<RejectedRow>;
  readonly #shiftsFile: ExportFile;
  readonly #rejectedFile: ExportFile;
  readonly #files: ExportFiles;
  readonly #options: CsvTableOptions;
  readonly #compression: CsvCompression;

  /** Opens shifts.csv and rejected.csv. */
  constructor(files: ExportFiles, settings: ExportSettings) {
    this.#files = files;
    this.#options = csvTableOptions(settings);
    this.#compression = settings.csvCompression;
    const shifts = this.#open('shifts.csv');
    const rejected = this.#open('rejected.csv');
    this.#shiftsFile = shifts.file;
    this.#rejectedFile = rejected.file;
    this.shifts = new CsvTableWriter(SHIFT_COLUMNS, shifts.output, this.#options);
    this.#rejected = new CsvTableWriter(REJECTED_COLUMNS, rejected.output, this.#options);
  }

  async write(batch: ExportBatch): Promise<void> {
    for (const row of batch.rejected) {
      const wait = this.#rejected.write(row);
      if (wait) await wait;
    }
  }

  async finish(ending: ExportEnding): Promise<void> {
    this.#shiftsFile.rows = (await this.shifts.end()).rows;
    this.#rejectedFile.rows = (await this.#rejected.end()).rows;
    await this.#writeSummaries(ending.summaries);
  }

  /** Nothing to let go of: ExportFiles destroys the files. */
  async abort(): Promise<void> {}

  async #writeSummaries(summaries: ExportSummaries): Promise<void> {
    for (const table of SUMMARY_TABLES) {
      const { file, output } = this.#open(table.fileName);
      file.rows = await table.use(summaries, async (columns, rows) => {
        const writer = new CsvTableWriter(columns, output, this.#options);
        for (const row of rows) {
          const wait = writer.write(row);
          if (wait) await wait;
        }
        return (await writer.end()).rows;
      });
    }
  }

  #open(name: string): CsvFile {
    const compression = this.#compression;
    const file = this.#files.open(
      csvFileName(name, compression),
      CONTENT_TYPES.csv,
      csvContentEncoding(compression),
    );
    return { file, output: csvOutput(file.stream, compression) };
  }
}
