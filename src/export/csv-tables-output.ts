// The CSV files of an export (format csv): shifts.csv, rejected.csv and, at the end, the five
// summaries (summary-tables.ts), each `.csv.gz` with CSV_COMPRESSION=gzip. The shifts' records
// reach shifts.csv through ShiftRowsOutput, which may have them rendered on export threads; this
// output writes the rejected rows, ends both files, and writes the summaries once they are known.
// Which of these files it writes is its CsvTables: all of them (an export), a division's
// (split by division: no rejected.csv), or only rejected.csv (the top of
// an export split by division).

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
import type { ExportFile, FileOpener } from './export-files.js';
import type { ExportSettings } from './export-settings.js';
import { SUMMARY_TABLES, type SummaryTable } from './summary-tables.js';
import type { ExportBatch, ExportEnding, TableOutput } from './table-output.js';

/** How every CSV file of the export is written. */
export function csvTableOptions(settings: ExportSettings): CsvTableOptions {
  return { delimiter: settings.csvDelimiter, decimal: settings.csvDecimal, bom: settings.csvBom };
}

/** Which CSV files an output writes. */
export interface CsvTables {
  readonly shifts: boolean;
  readonly rejected: boolean;
  readonly summaries: readonly SummaryTable[];
}

/** An export's CSV files: shifts.csv, rejected.csv, the five summaries. */
export const EXPORT_CSV_TABLES: CsvTables = { shifts: true, rejected: true, summaries: SUMMARY_TABLES };

/**
 * A division's, in an export split by division: its summaries (by division its one row, as the
 * workbook's By division sheet), and no rejected.csv: a rejected row's division cannot be trusted,
 * so rejected.csv stays at the top of the export.
 */
export const DIVISION_CSV_TABLES: CsvTables = { shifts: true, rejected: false, summaries: SUMMARY_TABLES };

/** The top of an export split by division: rejected.csv alone. */
export const SPLIT_EXPORT_CSV_TABLES: CsvTables = { shifts: false, rejected: true, summaries: [] };

/** A CSV file of the export: where it is stored, and the stream its text goes into. */
interface CsvFile {
  readonly file: ExportFile;
  readonly output: Writable;
}

export class CsvTablesOutput implements TableOutput {
  /** shifts.csv (when written): ShiftRowsOutput writes its records. */
  readonly shifts: CsvTableWriter<ShiftRecord> | undefined;
  readonly #rejected: CsvTableWriter<RejectedRow> | undefined;
  readonly #shiftsFile: ExportFile | undefined;
  readonly #rejectedFile: ExportFile | undefined;
  readonly #files: FileOpener;
  readonly #options: CsvTableOptions;
  readonly #compression: CsvCompression;
  readonly #summaries: readonly SummaryTable[];

  /** Opens shifts.csv and rejected.csv, as `tables` has them. */
  constructor(files: FileOpener, settings: ExportSettings, tables: CsvTables = EXPORT_CSV_TABLES) {
    this.#files = files;
    this.#options = csvTableOptions(settings);
    this.#compression = settings.csvCompression;
    this.#summaries = tables.summaries;
    const shifts = tables.shifts ? this.#open('shifts.csv') : undefined;
    const rejected = tables.rejected ? this.#open('rejected.csv') : undefined;
    this.#shiftsFile = shifts?.file;
    this.#rejectedFile = rejected?.file;
    this.shifts = shifts && new CsvTableWriter(SHIFT_COLUMNS, shifts.output, this.#options);
    this.#rejected = rejected && new CsvTableWriter(REJECTED_COLUMNS, rejected.output, this.#options);
  }

  async write(batch: ExportBatch): Promise<void> {
    const rejected = this.#rejected;
    if (rejected === undefined) return;
    for (const row of batch.rejected) {
      const wait = rejected.write(row);
      if (wait) await wait;
    }
  }

  async finish(ending: ExportEnding): Promise<void> {
    if (this.#shiftsFile !== undefined && this.shifts !== undefined)
      this.#shiftsFile.rows = (await this.shifts.end()).rows;
    if (this.#rejectedFile !== undefined && this.#rejected !== undefined)
      this.#rejectedFile.rows = (await this.#rejected.end()).rows;
    await this.#writeSummaries(ending.summaries);
  }

  /** Nothing to let go of: ExportFiles destroys the files. */
  async abort(): Promise<void> {}

  async #writeSummaries(summaries: ExportSummaries): Promise<void> {
    for (const table of this.#summaries) {
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
