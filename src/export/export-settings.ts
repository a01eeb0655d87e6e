// The settings one export runs with, as ConfiguredExport reads them from configuration (the tests
// and the bench give them directly): how the CSV files are written, the workbook's match-rate
// threshold and language, what the manifest records as the source, and the memory, temp folder and
// threads the export may use.

import type { DecimalSeparator } from '../render/cell-text.js';
import type { CsvCompression } from '../render/csv/csv-compression.js';
import type { CsvDelimiter } from '../render/csv/csv-line-encoder.js';
import type { ReportLanguage } from '../i18n/report-language.js';

export interface ExportSettings {
  readonly csvDelimiter: CsvDelimiter;
  readonly csvDecimal: DecimalSeparator;
  readonly csvCompression: CsvCompression;
  readonly csvBom: boolean;
  readonly matchRateThreshold: number;
  /**
   * The language of the workbook's texts (sheet names, headers, labels, the About sheet); default
   * en. CSV and Parquet columns, file names and the manifest are the same in every language.
   */
  readonly language?: ReportLanguage;
  /** The upstream's base URL, recorded in the manifest (never a token). */
  readonly sourceBaseUrl: string;
  /** EXPORT_MEMORY_MB in bytes: what user and shop statistics may hold before they spill; none: no limit. */
  readonly memoryBudgetBytes?: number;
  /** Where statistics spill; default os.tmpdir(). */
  readonly tempDir?: string;
  /** EXPORT_THREADS: threads that work the rows, this one included; default 1 (this one only). */
  readonly threads?: number;
  /**
   * EXPORT_STATISTICS_THREAD: with export threads, the statistics are counted on a thread of their
   * own (statistics-thread.ts); default false (on the export's thread).
   */
  readonly statisticsThread?: boolean;
}
