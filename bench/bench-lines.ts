// The lines the bench prints: which measurement each runs, how its rate is read (whole process
// or the stage timed in-process) and the target it is held against (docs/performance.md).

import type { MeasureKind } from './measure-kinds.js';
import type { MeasureResult } from './measure.js';

export interface BenchLine {
  readonly name: string;
  readonly kind: MeasureKind;
  readonly what: string;
  /** Rows/s wanted; undefined: none. */
  readonly targetRowsPerSecond?: number;
  /** Rows/s wanted as a share of DuckDB's in the same run (0.4: 0.40× DuckDB); undefined: none. */
  readonly targetOfDuckdb?: number;
  /** Peak RSS allowed, MB. */
  readonly rssLimitMb: number;
  /** Rate from the in-process stage time rather than the process's wall time. */
  readonly byStageTime: boolean;
  /** Measured against a sandbox whose every row is its own user (--cardinality). */
  readonly userPerRow?: boolean;
  /** Measured against a sandbox of this many divisions (--split). */
  readonly divisions?: number;
  /** Settings of this line's runs, over the bench's own environment. */
  readonly env?: Readonly<Record<string, string>>;
}

export const EXPORT_RSS_LIMIT_MB = 250;
export const CLIENT_RSS_LIMIT_MB = 150;
/** The target of a report whose every row is its own user: within the export's 250 MB too. */
export const CARDINALITY_RSS_LIMIT_MB = 250;
/** Reports for many: 1M rows over 200 divisions as csv,xlsx split by division, at most 350 MB. */
export const SPLIT_RSS_LIMIT_MB = 350;
/** The divisions of the --split lines' sandbox. */
export const SPLIT_DIVISIONS = 200;
/** A split over 10 divisions holds at most this (its target beside the unsplit export's 250 MB). */
export const SPLIT_10_RSS_LIMIT_MB = 300;

const LINES: Record<string, BenchLine> = {
  ceiling: {
    name: 'ceiling',
    kind: 'ceiling',
    what: 'download, discarded unparsed',
    rssLimitMb: CLIENT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  ingest: {
    name: 'ingest',
    kind: 'ingest',
    what: 'download + parse into row objects',
    targetRowsPerSecond: 200_000,
    rssLimitMb: CLIENT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  stages: {
    name: 'stages',
    kind: 'stages',
    what: 'validate..aggregate, timed in-process',
    targetRowsPerSecond: 500_000,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: true,
  },
  csv: {
    name: 'csv e2e',
    kind: 'csv',
    what: '`run --format csv`',
    targetRowsPerSecond: 100_000,
    targetOfDuckdb: 0.75,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  // Export threads: the line above runs at the default EXPORT_THREADS (one per CPU), this one at 1.
  'csv@1': {
    name: 'csv e2e, 1 thread',
    kind: 'csv',
    what: '`run --format csv` with EXPORT_THREADS=1: every row worked on the export thread',
    targetRowsPerSecond: 100_000,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
    env: { EXPORT_THREADS: '1' },
  },
  xlsx: {
    name: 'xlsx e2e',
    kind: 'xlsx',
    what: '`run --format xlsx`',
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  'csv,xlsx': {
    name: 'csv+xlsx e2e',
    kind: 'csv,xlsx',
    what: '`run --format csv,xlsx`',
    targetRowsPerSecond: 40_000,
    targetOfDuckdb: 0.4,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  // Export threads: the line above runs at the default EXPORT_THREADS (one per CPU), this one at 1.
  'csv,xlsx@1': {
    name: 'csv+xlsx e2e, 1 thread',
    kind: 'csv,xlsx',
    what: '`run --format csv,xlsx` with EXPORT_THREADS=1: rendered on the export thread alone',
    targetRowsPerSecond: 40_000,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
    env: { EXPORT_THREADS: '1' },
  },
  // The statistics on a thread of their own: the line above, with EXPORT_STATISTICS_THREAD=true.
  'csv,xlsx@statistics': {
    name: 'csv+xlsx e2e, statistics thread',
    kind: 'csv,xlsx',
    what: '`run --format csv,xlsx` with EXPORT_STATISTICS_THREAD=true: the statistics counted on a thread of their own',
    targetOfDuckdb: 0.4,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
    env: { EXPORT_STATISTICS_THREAD: 'true' },
  },
  parquet: {
    name: 'parquet e2e',
    kind: 'parquet',
    what: '`run --format parquet`',
    targetOfDuckdb: 0.5,
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  // Export threads: the line above runs at the default EXPORT_THREADS (one per CPU), this one at 1.
  'parquet@1': {
    name: 'parquet e2e, 1 thread',
    kind: 'parquet',
    what: '`run --format parquet` with EXPORT_THREADS=1: every row worked on the export thread',
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
    env: { EXPORT_THREADS: '1' },
  },
  'csv,parquet': {
    name: 'csv+parquet e2e',
    kind: 'csv,parquet',
    what: '`run --format csv,parquet`',
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
  },
  duckdb: {
    name: 'duckdb',
    kind: 'duckdb',
    what: 'the peer: DuckDB, the same report bytes from a local file to a CSV with local times',
    rssLimitMb: Number.POSITIVE_INFINITY,
    byStageTime: false,
  },
  cardinality: {
    name: 'csv e2e, user per row',
    kind: 'csv',
    what: '`run --format csv`, every row its own user',
    rssLimitMb: CARDINALITY_RSS_LIMIT_MB,
    byStageTime: false,
    userPerRow: true,
  },
  // --split: the same export whole and split by division, on one sandbox of 200 divisions.
  'csv,xlsx@200': {
    name: 'csv+xlsx e2e, 200 divisions',
    kind: 'csv,xlsx',
    what: '`run --format csv,xlsx` over 200 divisions: the unsplit export the split line is compared with',
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
    divisions: SPLIT_DIVISIONS,
  },
  split: {
    name: 'csv+xlsx e2e, split by division',
    kind: 'split',
    what: 'csv,xlsx with `split: division`: each of 200 divisions its own files, the report read once',
    rssLimitMb: SPLIT_RSS_LIMIT_MB,
    byStageTime: false,
    divisions: SPLIT_DIVISIONS,
  },
  // --lines csv+xlsx@10,split@10: the same over 10 divisions, the split's target of 1.10x and 300 MB.
  'csv,xlsx@10': {
    name: 'csv+xlsx e2e, 10 divisions',
    kind: 'csv,xlsx',
    what: '`run --format csv,xlsx` over 10 divisions: the unsplit export the 10-division split is compared with',
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: false,
    divisions: 10,
  },
  'split@10': {
    name: 'csv+xlsx e2e, split by 10 divisions',
    kind: 'split',
    what: 'csv,xlsx with `split: division`: each of 10 divisions its own files, the report read once',
    rssLimitMb: SPLIT_10_RSS_LIMIT_MB,
    byStageTime: false,
    divisions: 10,
  },
  'xlsx-render': {
    name: 'xlsx stage',
    kind: 'xlsx-render',
    what: 'workbook rendering alone, timed in-process',
    rssLimitMb: EXPORT_RSS_LIMIT_MB,
    byStageTime: true,
  },
};

function line(kind: string): BenchLine {
  const found = LINES[kind];
  if (found === undefined)
    throw new Error(`no bench line ${kind} (one of: ${Object.keys(LINES).join(', ')})`);
  return found;
}

/**
 * The lines of a default run for the given e2e formats ('csv', 'xlsx' or 'csv,xlsx'; undefined:
 * csv and csv,xlsx), DuckDB's among them, and the every-row-its-own-user line when asked.
 */
export function headlineLines(formats: string | undefined, cardinality = false): BenchLine[] {
  const e2e = formats === undefined ? ['csv', 'csv,xlsx'] : [formats];
  const wantsXlsx = e2e.some((f) => f.includes('xlsx'));
  return [
    line('ceiling'),
    line('ingest'),
    line('stages'),
    line('duckdb'),
    ...e2e.map(line),
    ...(e2e.includes('csv') ? [line('csv@1')] : []),
    ...(e2e.includes('csv,xlsx') ? [line('csv,xlsx@1')] : []),
    ...(wantsXlsx ? [line('xlsx-render')] : []),
    ...(cardinality ? [line('cardinality')] : []),
  ];
}

export function linesByKind(kinds: readonly string[]): BenchLine[] {
  return kinds.map(line);
}

/** --split: the unsplit export and the split one, over the same 200 divisions. */
export function splitLines(): BenchLine[] {
  return [line('csv,xlsx@200'), line('split')];
}

export function clientLines(): BenchLine[] {
  return [line('ceiling'), line('ingest')];
}

export function e2eLine(formats: string | undefined): BenchLine {
  return line(formats ?? 'csv,xlsx');
}

/** The speed-up Amdahl's law gives on `cores` cores when `serial` of the work cannot run in parallel. */
export function amdahlSpeedUp(serial: number, cores: number): number {
  return 1 / (serial + (1 - serial) / cores);
}

export function rowsPerSecond(bench: BenchLine, result: MeasureResult): number {
  const ms = bench.byStageTime && result.stageMs !== undefined ? result.stageMs : result.wallMs;
  return result.rows / (ms / 1000);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
