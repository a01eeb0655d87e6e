// What the worker's main thread and an export thread say to each other (export-thread.ts starts
// the thread, export-thread-entry.ts runs in it). Only plain data crosses: errors as one line and
// whether retrying can help, log lines as the JSON pino wrote.

import type { ConnectedWfmConfig } from '../src/config/wfm-config.js';
import type { ExportConfig } from '../src/config/export-config.js';
import type { ExportFormat } from '../src/domain/export-format.js';
import type { RowFilter } from '../src/domain/row-filter.js';
import type { ReportLanguage } from '../src/i18n/report-language.js';
import type { LogLevel } from '../src/logger.js';
import type { S3Config } from '../src/config/s3-config.js';
import type { ExportProgress } from '../src/export/progress.js';
import type { ExportJobResult } from '../src/queue/export-job-result.js';
import type { ExportOutcome } from '../src/queue/export-metrics.js';

/** The thread's workerData: one export, everything it needs already checked by the main thread. */
export interface ExportThreadInput {
  readonly from: string;
  readonly to: string;
  readonly formats: readonly ExportFormat[];
  /** The export definition's filter and split (export-period.ts resolves them from the job's `export`). */
  readonly filter?: RowFilter;
  readonly split?: 'division';
  /** The definition's language, and whose languages a split's workbooks are also written in. */
  readonly lang?: ReportLanguage;
  readonly readers?: 'division-managers';
  /** Already allowed by the main thread; the export checks it again before each write. */
  readonly dest: string;
  readonly exportConfig: ExportConfig;
  readonly wfm: ConnectedWfmConfig;
  /** Present for an s3:// destination. */
  readonly s3: S3Config | undefined;
  readonly logLevel: LogLevel;
}

/** Why an export failed, as the job's failure reason will say it. */
export interface ExportThreadFailure {
  /** `CODE: message` on one line (describeError). */
  readonly line: string;
  /** True when no later attempt can succeed (toJobFailure's rule). */
  readonly terminal: boolean;
  /** The ShiftExportError's code and message, when it was one: notifications and metrics name the code. */
  readonly error?: { readonly code: string; readonly message: string };
}

export type FromExportThread =
  | { readonly type: 'log'; readonly line: string }
  | { readonly type: 'progress'; readonly progress: ExportProgress }
  | { readonly type: 'completed'; readonly summary: ExportJobResult; readonly outcome: ExportOutcome }
  | { readonly type: 'failed'; readonly failure: ExportThreadFailure; readonly outcome: ExportOutcome };

export type ToExportThread = { readonly type: 'abort'; readonly reason: unknown };
