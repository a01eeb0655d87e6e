// An export request: what a person or a program asks for (CLI flags, an API body), as text.
// checkExportRequest checks it before anything is enqueued, so that mistakes are answered at once
// with one line: a real period within the maximum length, known formats (default EXPORT_FORMATS),
// a destination we would accept. The result is the job data; the worker checks it again when the
// job starts.

import { parseFormats, type ExportFormat } from '../domain/export-format.js';
import type { ExportConfig } from '../config/export-config.js';
import { FLAG_PERIOD_FIELDS, parsePeriod, type PeriodFields } from '../domain/period.js';
import { ConfigError, InvalidRequestError } from '../errors.js';
import { exportJobData, type ExportJobData } from './export-job-data.js';

/** An export as asked for, unchecked. */
export interface ExportRequest {
  readonly from: string;
  readonly to: string;
  /** `csv,xlsx,parquet` text (CLI) or a list (API); absent: EXPORT_FORMATS. */
  readonly formats?: string | readonly string[] | undefined;
  readonly dest?: string | undefined;
}

/** Longest backfill, in days: one child job per day. */
export const MAX_BACKFILL_DAYS = 366;

/** The names of a request's fields in messages: the period's, and the formats'. */
export interface RequestFields extends PeriodFields {
  readonly formats: string;
}

/** `--from`, `--to`, `--format`: the command line (the default). */
export const FLAG_FIELDS: RequestFields = { ...FLAG_PERIOD_FIELDS, formats: '--format' };
/** `from`, `to`, `formats`: a POST /exports body; an API answer never speaks of CLI flags. */
export const BODY_FIELDS: RequestFields = { from: 'from', to: 'to', formats: 'formats' };

/**
 * Formats asked for by a person or a program: an unknown one is a bad request (REQUEST_INVALID),
 * like a bad period; only EXPORT_FORMATS, a setting, is CONFIG_INVALID.
 */
export function requestedFormats(text: string, source: string): ExportFormat[] {
  try {
    return parseFormats(text, source);
  } catch (error) {
    if (error instanceof ConfigError) throw new InvalidRequestError(error.message);
    throw error;
  }
}

const backfillOverLimit = (maxDays: number): string =>
  `more than the ${maxDays} one backfill may cover; split it into several backfills`;

/**
 * `checkDest` throws when a destination's text is malformed: the destinations room's parser, passed
 * in by the caller because the queue room does not import destinations/. `backfill`: the period
 * may be up to MAX_BACKFILL_DAYS long.
 */
export function checkExportRequest(
  request: ExportRequest,
  config: Pick<ExportConfig, 'formats' | 'maxDays'>,
  checkDest: (dest: string) => unknown,
  options: { readonly backfill?: boolean; readonly fields?: RequestFields } = {},
): ExportJobData {
  const fields = options.fields ?? FLAG_FIELDS;
  const period = parsePeriod(
    request.from,
    request.to,
    options.backfill === true
      ? { maxDays: MAX_BACKFILL_DAYS, fields, overLimit: backfillOverLimit }
      : { maxDays: config.maxDays, fields },
  );
  const formats: readonly ExportFormat[] =
    request.formats === undefined
      ? config.formats
      : requestedFormats(
          typeof request.formats === 'string' ? request.formats : request.formats.join(','),
          fields.formats,
        );
  // Refuses `..`, control characters, bad bucket names... now rather than in the worker.
  if (request.dest !== undefined) checkDest(request.dest);
  return exportJobData(period.from, period.to, formats, request.dest);
}
