// The export group of settings: where exports go (EXPORT_DEST and the further roots a job may
// name), which formats are written when none are asked for, how long a period may be, memory and
// export threads, the CSV dialect (delimiter, decimal separator, compression, BOM), the
// workbook's highlight threshold, and the language readers get when a definition names none.

import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseDestination } from '../destination-address.js';
import { parseFormats, type ExportFormat } from '../domain/export-format.js';
import { ConfigError, ShiftExportError } from '../errors.js';
import { DEFAULT_REPORT_LANGUAGE, REPORT_LANGUAGES } from '../i18n/report-language.js';
import { hasControlCharacters } from '../one-line.js';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { flag, hasUserinfo, int, listOf } from './variable-schemas.js';

/** A comma-separated list of destinations, each checked now so a typo stops the start, not a job. */
function parseDestinationList(text: string | undefined, variable: string): readonly string[] {
  const entries = listOf(text);
  for (const entry of entries) {
    try {
      parseDestination(entry);
    } catch (error) {
      const why = error instanceof ShiftExportError ? error.message : String(error);
      throw new ConfigError(`${variable} is invalid: ${why}`, { variable });
    }
  }
  return Object.freeze(entries);
}

export const exportVariables = {
  dest: envVar(
    'EXPORT_DEST',
    z
      .string()
      .refine((d) => !hasUserinfo(d), 'must not contain credentials (S3 credentials come from the AWS chain)')
      .refine((d) => !hasControlCharacters(d), 'must not contain control characters')
      .default('./exports'),
    'Where exports go: a folder, or s3://bucket/prefix.',
  ),
  /** Further destination roots, each a valid destination text. */
  destAllow: envVar(
    'EXPORT_DEST_ALLOW',
    z
      .string()
      .optional()
      .transform((text) => parseDestinationList(text, 'EXPORT_DEST_ALLOW')),
    'Comma-separated further roots a job or request may write to besides EXPORT_DEST: folders (compared by real path, symlinks resolved) and/or s3://bucket/prefix (that prefix or below it). Workers refuse any other destination.',
  ),
  formats: envVar(
    'EXPORT_FORMATS',
    z
      .string()
      .default('csv,xlsx')
      .transform((text): readonly ExportFormat[] => Object.freeze(parseFormats(text, 'EXPORT_FORMATS'))),
    'Formats written when none are asked for: csv, xlsx, parquet, comma-separated.',
  ),
  maxDays: envVar('EXPORT_MAX_DAYS', int(1, 3660, 31), 'Longest period one export may cover, in days.'),
  memoryMb: envVar(
    'EXPORT_MEMORY_MB',
    int(1, 1_048_576, 112),
    "Megabytes of JavaScript memory (V8 heap in use plus Buffers) the export's thread may hold, with what its export threads report holding, measured every 4,096 rows, before its user and shop statistics spill to sorted runs in the temp folder (TMPDIR); their summaries are then sorted within the same budget and merged from disk, exact all the same. The statistics' own estimated size is held to it too. The process's peak RSS is about this plus 80-160 MB (code, native memory, the export threads' heaps): docs/performance.md.",
  ),
  /** Resolved by loadExportConfig: undefined here means "as many as there are CPUs". */
  threads: envVar(
    'EXPORT_THREADS',
    z.coerce.number().int().min(1).max(256).optional(),
    "Threads an export works its rows on. Every export parses the report on this many export threads, each doing every row's own work (its shifts.csv record, Shifts sheet row and Parquet values included; split by division, its line in the division spool, and each division's rows again when its files are written), and keeps only duplicates, statistics and writing on its own thread (1: all on that thread). The files are the same bytes whatever the number.",
    { docDefault: 'the CPUs (os.availableParallelism()); in a worker, the CPUs over WORKER_CONCURRENCY' },
  ),
  statisticsThread: envVar(
    'EXPORT_STATISTICS_THREAD',
    flag(false),
    "With export threads (EXPORT_THREADS above 1), count the statistics on a thread of their own, fed the exported rows in report order, instead of on the export's thread. The same summaries, exact medians and p90 included, within the same EXPORT_MEMORY_MB; it pays where a CPU is free for it: docs/performance.md.",
  ),
  csvDelimiter: envVar(
    'CSV_DELIMITER',
    z
      .enum([',', ';', 'tab'])
      .default(',')
      .transform((d) => (d === 'tab' ? '\t' : d)),
    'CSV field delimiter: "," or ";" (what Excel expects in many European locales) or "tab".',
  ),
  /** Resolved by loadExportConfig: undefined here means "follow CSV_DELIMITER". */
  csvDecimal: envVar(
    'CSV_DECIMAL',
    z.enum(['.', ',']).optional(),
    'Decimal separator of every non-integer number in the CSV files (hours, rates, medians, coordinates): "." or ",". A "," needs CSV_DELIMITER ";" or "tab".',
    { docDefault: '"," when CSV_DELIMITER is ";", else "."' },
  ),
  csvCompression: envVar(
    'CSV_COMPRESSION',
    z.enum(['none', 'gzip']).default('none'),
    'Compression of the CSV files: "none", or "gzip" to write *.csv.gz (streamed; on S3 stored with Content-Encoding: gzip and Content-Type text/csv).',
  ),
  csvBom: envVar(
    'CSV_BOM',
    flag(true),
    'Start CSV files with a UTF-8 byte order mark, so Excel reads them as UTF-8.',
  ),
  matchRateThreshold: envVar(
    'XLSX_MATCH_RATE_THRESHOLD',
    z.coerce.number().min(0).max(1).default(0.8),
    'Start-match rates below this (0..1) are highlighted in the workbook.',
  ),
  /** The `lang` of every export definition that sets none (the nightly one made of settings too). */
  reportLang: envVar(
    'REPORT_LANG',
    z
      .enum(REPORT_LANGUAGES, {
        error: `must be one of ${REPORT_LANGUAGES.join(', ')} (the languages with a complete catalog)`,
      })
      .default(DEFAULT_REPORT_LANGUAGE),
    `Language of what readers see (the workbook's sheets and labels, the e-mail) for every export definition without a \`lang\` of its own: ${REPORT_LANGUAGES.join(', ')}. A division manager whose upstream \`lang\` has a catalog reads that one instead; one whose \`lang\` has none, or is not a language tag, reads the definition's. CSV and Parquet column names and values, file names, manifest keys and error codes are never translated.`,
  ),
};

export type ExportConfig = Omit<Loaded<typeof exportVariables>, 'csvDecimal' | 'threads'> & {
  readonly csvDecimal: '.' | ',';
  readonly threads: number;
};

/**
 * `concurrentExports`: how many exports the process runs at once (a worker's WORKER_CONCURRENCY),
 * among which the CPUs are shared when EXPORT_THREADS is not set.
 */
export function loadExportConfig(env: Env, concurrentExports = 1): ExportConfig {
  const config = loadDeclared(env, exportVariables);
  // A decimal comma is what a `;` delimiter is chosen for: European locales read both.
  const csvDecimal = config.csvDecimal ?? (config.csvDelimiter === ';' ? ',' : '.');
  if (csvDecimal === ',' && config.csvDelimiter === ',') {
    throw new ConfigError(
      'CSV_DECIMAL "," needs CSV_DELIMITER ";" or "tab": with "," both, every decimal would split into two cells',
      { variable: 'CSV_DECIMAL' },
    );
  }
  const threads = config.threads ?? Math.max(1, Math.floor(availableParallelism() / concurrentExports));
  return Object.freeze({ ...config, csvDecimal, threads });
}
