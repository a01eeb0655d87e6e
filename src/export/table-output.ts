// A table writer of an export, one interface for all of them (CSV, workbook, Parquet, the shift
// rows rendered on threads, the change recorder's notes): it gets every batch the pipeline gives,
// in report order, through the fan-out (batch-fan-out.ts); then finish() once the summaries and
// the changes since the previous export are known, or abort() when the export fails. The files it
// writes are opened in ExportFiles, which stores them, lists them in the manifest, and destroys
// them when the export fails.

import type { RecordedChanges } from '../changes/change-recorder.js';
import type { ExportCounts } from '../domain/export-counts.js';
import type { Period } from '../domain/period.js';
import type { ExportSummaries } from '../domain/summary.js';
import type { Logger } from '../logger.js';
import type { DivisionDirectory } from '../pipeline/enrich.js';
import type { BatchResult } from '../pipeline/shift-pipeline.js';
import type { FileOpener } from './export-files.js';
import type { WorkedRows } from './worked-cut-pipeline.js';
import type { ExportSettings } from './export-settings.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import type { PreviousPeriod } from '../render/previous-period.js';

/**
 * One batch out of the pipeline: its exported shifts, its rejected rows. When the rows were worked
 * on export threads (cut-work.ts), the exported rows come as `worked` (their CSV records and
 * fingerprints), and `shifts` is empty.
 */
export interface ExportBatch extends BatchResult {
  readonly worked?: WorkedRows;
}

/** What is known once every batch has been written. */
export interface ExportEnding {
  readonly summaries: ExportSummaries;
  readonly counts: ExportCounts;
  /** The changes since the previous export, as the manifest will say them. */
  readonly changes: Omit<RecordedChanges, 'file'>;
  /**
   * The definition's previous period as published, which the workbook's Overview compares with;
   * null: none to compare with (the first period, or its manifest could not be read); absent: not
   * looked for (an export without a workbook), and the Overview shows no comparison.
   */
  readonly previousPeriod?: PreviousPeriod | null;
}

/** What an output is opened with, before the first batch. */
export interface OutputSetup {
  readonly files: FileOpener;
  /** Set for one division's files in an export split by division: its workbook charts its regions. */
  readonly divisionId?: number;
  readonly settings: ExportSettings;
  /**
   * Further languages the workbook is written in beside settings.language (a division whose
   * managers read them): each a workbook of its own, shifts.<lang>.xlsx, from the same rows.
   */
  readonly moreLanguages?: readonly ReportLanguage[];
  readonly divisions: DivisionDirectory;
  readonly period: Period;
  readonly exportId: string;
  readonly startedAt: Date;
  readonly log: Logger;
}

export interface TableOutput {
  /** Takes one batch; resolves once there is room for the next. */
  write(batch: ExportBatch): Promise<void>;
  /**
   * After the last batch, before the export threads end: writes what it still waits for from
   * them (the sheet rows they render), so that they can end before the summaries are written.
   */
  drain?(): Promise<void>;
  /** After the last batch: writes what is left and ends its files, each with its rows counted. */
  finish(ending: ExportEnding): Promise<void>;
  /** The export failed (maybe after finish): stop, and let go of threads and temp files. */
  abort(error: unknown): Promise<void>;
}
