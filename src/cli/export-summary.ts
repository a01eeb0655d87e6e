// The few lines `run` and `demo` print when an export is published: where the files are, the
// headline numbers an analyst checks first, and the rows changed since the previous export (or
// that they were not counted, and why). The same lines as `enqueue --wait` and `status` print.

import type { ExportResult } from '../export/run-export.js';
import { exportJobResult } from '../queue/export-job-result.js';
import { formatExportResult } from './job-text.js';
import type { Manifest } from '../render/manifest.js';

/** `published` is the manifest as published, when the change tracking amended it. */
export function formatExportSummary(result: ExportResult, published?: Manifest): string {
  return formatExportResult(exportJobResult(result, published));
}
