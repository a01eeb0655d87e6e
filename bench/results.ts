// Where a bench run is kept: the whole result as bench/results/<timestamp>.json (git-ignored but
// latest.json), and one row of the history table in bench/README.md (between the markers).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LineSummary, ScaleSummary } from './report.js';

// dist/bench/ → the source tree's bench/.
const BENCH_DIR = fileURLToPath(new URL('../../bench/', import.meta.url));
const HISTORY_START = '<!-- history:start -->';
const HISTORY_END = '<!-- history:end -->';

export interface BenchRecord {
  readonly startedAt: Date;
  readonly machine: Record<string, unknown>;
  readonly mode: 'lines' | 'client' | 'scale';
  readonly options: Record<string, unknown>;
  readonly lines?: readonly LineSummary[];
  readonly scale?: readonly ScaleSummary[];
}

export function recordResults(record: BenchRecord): void {
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
  appendHistory(record);
}

function appendHistory(record: BenchRecord): void {
  const readme = `${BENCH_DIR}README.md`;
  if (!existsSync(readme)) return;
  const text = readFileSync(readme, 'utf8');
  const end = text.indexOf(HISTORY_END);
  if (text.indexOf(HISTORY_START) < 0 || end < 0) return;
  const row = historyRow(record);
  writeFileSync(readme, `${text.slice(0, end)}${row}\n${text.slice(end)}`);
}

const k = (n: number | undefined): string => (n === undefined ? '' : `${Math.round(n / 1000)}k`);

function historyRow(record: BenchRecord): string {
  const date = record.startedAt.toISOString().slice(0, 16).replace('T', ' ');
  const options = String(record.machine['nodeOptions'] ?? '');
  const node = String(record.machine['node']) + (options === '' ? '' : ` (${options})`);
  if (record.scale !== undefined) {
    const cells = record.scale.map(
      (s) => `${k(s.size)}: ${k(s.summary.rowsPerSecond)}/s ${s.summary.peakRssMb.toFixed(0)} MB`,
    );
    return `| ${date} | ${node} | scale, ${record.scale[0]?.summary.line.name ?? ''}: ${cells.join('; ')} |  |  |  |  |  |  |  |`;
  }
  const by = (kind: string): LineSummary | undefined => record.lines?.find((l) => l.line.kind === kind);
  // The export's lines only: not the ceiling, not the peer, not the every-row-its-own-user line.
  const rss = Math.max(
    ...(record.lines ?? [])
      .filter((l) => l.line.kind !== 'ceiling' && l.line.kind !== 'duckdb' && l.line.userPerRow !== true)
      .map((l) => l.peakRssMb),
  );
  const rows = record.lines?.[0]?.rows;
  const cells = ['ceiling', 'ingest', 'stages', 'csv', 'csv,xlsx', 'xlsx-render'].map((kind) =>
    k(by(kind)?.rowsPerSecond),
  );
  const runs = String(record.options['runs'] ?? '');
  const duckdb = by('duckdb');
  const peer = duckdb === undefined ? '' : `, duckdb ${k(duckdb.rowsPerSecond)}`;
  return `| ${date} | ${node} | ${k(rows)} rows, ${String(record.options['dest'])}, ${runs} run(s)${peer} | ${cells.join(' | ')} | ${rss.toFixed(0)} |`;
}
