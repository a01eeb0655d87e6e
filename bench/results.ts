// Where a bench run is kept: the whole result as bench/results/<timestamp>.json (git-ignored but
// latest.json), and one row of the history table in docs/performance.md (between the markers):
// its date, the commit it measured, the machine, and the figures. The page keeps the latest
// RECORDED_ROWS_KEPT rows; older ones move to the end of bench/results/history.md, whose last
// table is the earlier recorded runs, so the page stays short however often the bench runs.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LineSummary, ScaleSummary } from './report.js';

// dist/bench/ → the source tree's bench/.
const BENCH_DIR = fileURLToPath(new URL('../../bench/', import.meta.url));
const PERFORMANCE_DOC = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));
const HISTORY_NOTES = fileURLToPath(new URL('../../bench/results/history.md', import.meta.url));
const HISTORY_START = '<!-- history:start -->';
const HISTORY_END = '<!-- history:end -->';
/** Recorded runs docs/performance.md shows. */
export const RECORDED_ROWS_KEPT = 8;

export interface BenchRecord {
  readonly startedAt: Date;
  readonly machine: Record<string, unknown>;
  readonly mode: 'lines' | 'client' | 'scale';
  readonly options: Record<string, unknown>;
  readonly lines?: readonly LineSummary[];
  readonly scale?: readonly ScaleSummary[];
}

export function recordResults(record: BenchRecord): void {
  // Before this writes its own files (latest-*.json is tracked): they are not a change measured.
  const commit = measuredCommit();
  const dir = `${BENCH_DIR}results/`;
  mkdirSync(dir, { recursive: true });
  const stamp = record.startedAt
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z');
  const text = `${JSON.stringify(record, null, 2)}\n`;
  writeFileSync(`${dir}${stamp}-${record.mode}.json`, text);
  writeFileSync(`${dir}latest-${record.mode}.json`, text);
  process.stderr.write(`bench: wrote bench/results/${stamp}-${record.mode}.json\n`);
  appendHistory(record, commit);
}

function appendHistory(record: BenchRecord, commit: string): void {
  if (!existsSync(PERFORMANCE_DOC) || !existsSync(HISTORY_NOTES)) return;
  const updated = withRecordedRow(
    readFileSync(PERFORMANCE_DOC, 'utf8'),
    readFileSync(HISTORY_NOTES, 'utf8'),
    historyRow(record, commit),
  );
  if (updated === undefined) return;
  writeFileSync(PERFORMANCE_DOC, updated.page);
  writeFileSync(HISTORY_NOTES, updated.notes);
  process.stderr.write('bench: added a row to the history in docs/performance.md\n');
}

/**
 * The page with `row` last among its recorded runs, and the notes with the rows past the latest
 * `kept` appended to their last table; undefined when the page has no markers.
 */
export function withRecordedRow(
  page: string,
  notes: string,
  row: string,
  kept: number = RECORDED_ROWS_KEPT,
): { page: string; notes: string } | undefined {
  const start = page.indexOf(HISTORY_START);
  const end = page.indexOf(HISTORY_END);
  if (start < 0 || end < start) return undefined;
  const rows = page
    .slice(start + HISTORY_START.length, end)
    .split('\n')
    .filter((line) => line.startsWith('| '));
  rows.push(row);
  const moved = rows.slice(0, Math.max(0, rows.length - kept));
  const shown = rows.slice(moved.length);
  return {
    page: `${page.slice(0, start + HISTORY_START.length)}\n${shown.join('\n')}\n${page.slice(end)}`,
    notes: moved.length === 0 ? notes : `${notes.trimEnd()}\n${moved.join('\n')}\n`,
  };
}

function git(args: readonly string[]): string | undefined {
  try {
    return execFileSync('git', [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The commit the bench ran on: `f9669e6`, `f9669e6 with uncommitted changes`, or `unknown`. */
function measuredCommit(): string {
  const commit = git(['rev-parse', '--short', 'HEAD']);
  if (commit === undefined) return 'unknown';
  // What the bench itself writes (the page's recorded runs, the results) is not a change measured.
  const dirty = git([
    'status',
    '--porcelain',
    '--untracked-files=no',
    '--',
    '.',
    ':!docs/performance.md',
    ':!bench/results',
  ]);
  return dirty === undefined || dirty === '' ? commit : `${commit} with uncommitted changes`;
}

/** `2-core Intel(R) Xeon(R) Processor, 24 GB`, from the facts run.ts records. */
function machineText(machine: Record<string, unknown>): string {
  const memory = Number(machine['totalMemMb']);
  const gb = Number.isFinite(memory) ? `, ${Math.round(memory / 1024)} GB` : '';
  return `${String(machine['cpus'])}-core ${String(machine['model']).trim()}${gb}`;
}

const k = (n: number | undefined): string => (n === undefined ? '' : `${Math.round(n / 1000)}k`);

export function historyRow(record: BenchRecord, commit: string): string {
  const date = record.startedAt.toISOString().slice(0, 16).replace('T', ' ');
  const options = String(record.machine['nodeOptions'] ?? '');
  const node = String(record.machine['node']) + (options === '' ? '' : ` (${options})`);
  const when = `| ${date} | ${commit} | ${machineText(record.machine)} | ${node} |`;
  if (record.scale !== undefined) {
    const cells = record.scale.map(
      (s) => `${k(s.size)}: ${k(s.summary.rowsPerSecond)}/s ${s.summary.peakRssMb.toFixed(0)} MB`,
    );
    return `${when} scale, ${record.scale[0]?.summary.line.name ?? ''}: ${cells.join('; ')} |  |  |  |  |  |  |  |`;
  }
  // The every-row-its-own-user line is a csv line of another report: said apart, not in the csv column.
  const by = (kind: string): LineSummary | undefined =>
    record.lines?.find((l) => l.line.kind === kind && l.line.userPerRow !== true);
  const userPerRow = record.lines?.find((l) => l.line.userPerRow === true);
  // The export's lines only: not the ceiling, not the peer, not the every-row-its-own-user line.
  const exportRss = (record.lines ?? [])
    .filter((l) => l.line.kind !== 'ceiling' && l.line.kind !== 'duckdb' && l.line.userPerRow !== true)
    .map((l) => l.peakRssMb);
  const rss = exportRss.length === 0 ? '' : Math.max(...exportRss).toFixed(0);
  const rows = record.lines?.[0]?.rows;
  const cells = ['ceiling', 'ingest', 'stages', 'csv', 'csv,xlsx', 'xlsx-render'].map((kind) =>
    k(by(kind)?.rowsPerSecond),
  );
  const runs = String(record.options['runs'] ?? '');
  const duckdb = by('duckdb');
  const peer = duckdb === undefined ? '' : `, duckdb ${k(duckdb.rowsPerSecond)}`;
  const users =
    userPerRow === undefined
      ? ''
      : `, every row its own user ${k(userPerRow.rowsPerSecond)}/s ${userPerRow.peakRssMb.toFixed(0)} MB`;
  return `${when} ${k(rows)} rows, ${String(record.options['dest'])}, ${runs} run(s)${peer}${users} | ${cells.join(' | ')} | ${rss} |`;
}
