// The file formats an export can write: the word a job, a request, a flag and EXPORT_FORMATS share.
// A list of them is kept sorted and without repeats, so the same ask always names the same files
// (and the same job id).

import { ConfigError } from '../errors.js';

export const EXPORT_FORMATS = ['csv', 'xlsx', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Parses `csv,xlsx,parquet` into a sorted, de-duplicated list; `source` names the flag or variable.
 * A bad list is a ConfigError; a request's reader turns it into a bad request.
 */
export function parseFormats(text: string, source: string): ExportFormat[] {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  if (parts.length === 0)
    throw new ConfigError(
      `${source} names no format (expected csv, xlsx, parquet or a comma-separated list of them)`,
    );
  for (const p of parts) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(p)) {
      throw new ConfigError(
        `${source} has an unknown format ${JSON.stringify(p)} (expected csv, xlsx, parquet or a comma-separated list of them)`,
      );
    }
  }
  return EXPORT_FORMATS.filter((f) => parts.includes(f));
}
