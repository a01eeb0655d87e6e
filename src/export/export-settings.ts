// The settings one export runs with, as ConfiguredExport reads them from configuration (the tests
// and the bench give them directly): how the CSV files are written, the workbook's match-rate
// threshold, what the manifest records as the source, and the memory, temp folder and threads the
// export may use.

import type { DecimalSeparator } from '../render/cell-text.js';
import type { CsvCompression } from '../render/csv/csv-compression.js';
import type { CsvDelimiter } from '../render/csv/csv-line-encoder.js';

export interface ExportSettings {
  readonly csvDelimiter: CsvDelimiter;
  readonly csvDecimal: DecimalSeparator;
  readonly csvCompression: CsvCompression;
  readonly csvBom: boolean;
  readonly matchRateThreshold: number;
  /** The upstream's base URL, recorded in the manifest (never a token). */
  readonly sourceBaseUrl: string;
  /** EXPORT_MEMORY_MB in bytes: what user and shop statistics may hold before they spill; none: no limit. */
  readonly memoryBudgetBytes?: number;
  /** Where statistics spill; default os.tmpdir(). */
  readonly tempDir?: string;
  /** EXPORT_THREADS: threads that work the rows, this one included; default 1 (this one only). */
  readonly threads?: number;
}
