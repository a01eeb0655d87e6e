// An export asked for by a person or a program (CLI flags, an API body), checked before anything
// is enqueued so that mistakes are answered at once with one line: a real period within the
// maximum length, known formats (default EXPORT_FORMATS), a destination we would accept. The
// result is the job data; the worker checks it again when the job starts.

import { parseFormats, type ExportConfig, type ExportFormat } from '../config.js';
import { parsePeriod } from '../domain/period.js';
import { exportJobData, type ExportJobData } from './export-job-data.js';

export interface ExportAsk {
  readonly from: string;
  readonly to: string;
  /** `csv,xlsx` text (CLI) or a list (API); absent: EXPORT_FORMATS. */
  readonly formats?: string | readonly string[] | undefined;
  readonly dest?: string | undefined;
}

/** Longest backfill, in days: one child job per day. */
export const MAX_BACKFILL_DAYS = 366;

/**
 * `checkDest` throws when a destination's text is malformed: the destinations room's parser, passed
 * in by the caller because the queue room does not import destinations/.
 */
export function exportRequest(
  ask: ExportAsk,
  config: Pick<ExportConfig, 'formats' | 'maxDays'>,
  checkDest: (dest: string) => unknown,
  options: { maxDays?: number; formatsSource?: string } = {},
): ExportJobData {
  const period = parsePeriod(ask.from, ask.to, options.maxDays ?? config.maxDays);
  const source = options.formatsSource ?? '--format';
  const formats: readonly ExportFormat[] =
    ask.formats === undefined
      ? config.formats
      : parseFormats(typeof ask.formats === 'string' ? ask.formats : ask.formats.join(','), source);
  // Refuses `..`, control characters, bad bucket names... now rather than in the worker.
  if (ask.dest !== undefined) checkDest(ask.dest);
  return exportJobData(period.from, period.to, formats, ask.dest);
}
