// The bench's tables, as text: one line per measurement next to its target and the ceiling, and
// the scale table (time per row, peak RSS per size).

import { amdahlSpeedUp, median, type BenchLine } from './bench-lines.js';
import type { MeasureResult } from './measure.js';

export interface LineSummary {
  readonly line: BenchLine;
  readonly rows: number;
  /** Medians over the runs, except peakRssMb: the largest. */
  readonly rowsPerSecond: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Main-thread CPU / all threads' CPU (undefined off Linux). */
  readonly serialFraction: number | undefined;
  readonly peakRssMb: number;
  readonly runs: readonly MeasureResult[];
}

export interface ScaleSummary {
  readonly size: number;
  readonly summary: LineSummary;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const secs = (ms: number): string => (ms / 1000).toFixed(2);

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

const ratio = (n: number, of: number | undefined): string =>
  of === undefined ? '' : `${(n / of).toFixed(2)}×`;

/** The serial fraction and the speed-ups it allows at 4, 8 and 16 cores (Amdahl). */
function amdahl(serial: number | undefined): string[] {
  if (serial === undefined) return ['', ''];
  return [
    serial.toFixed(2),
    [4, 8, 16].map((cores) => `${amdahlSpeedUp(serial, cores).toFixed(1)}`).join(' / '),
  ];
}

export function formatLineTable(summaries: readonly LineSummary[]): string {
  const ceiling = summaries.find((s) => s.line.kind === 'ceiling')?.rowsPerSecond;
  const duckdb = summaries.find((s) => s.line.kind === 'duckdb')?.rowsPerSecond;
  const rows = summaries.map((s) => [
    s.line.name,
    int(s.rows),
    int(s.rowsPerSecond),
    secs(s.wallMs),
    secs(s.cpuMs),
    ((s.cpuMs * 1000) / Math.max(1, s.rows)).toFixed(1),
    s.peakRssMb.toFixed(0),
    ceiling === undefined ? '' : `${((s.rowsPerSecond / ceiling) * 100).toFixed(0)}%`,
    ratio(s.rowsPerSecond, duckdb),
    ...amdahl(s.serialFraction),
    s.line.targetRowsPerSecond === undefined ? '' : `≥ ${int(s.line.targetRowsPerSecond)}`,
    s.line.targetOfDuckdb === undefined ? '' : `≥ ${s.line.targetOfDuckdb.toFixed(2)}×`,
    verdict(s, duckdb),
  ]);
  return table(
    [
      'line',
      'rows',
      'rows/s',
      'wall s',
      'CPU s',
      'CPU µs/row',
      'peak RSS MB',
      'of ceiling',
      'of duckdb',
      'serial',
      'Amdahl ×4/8/16 cores',
      'target rows/s',
      'target of duckdb',
      '',
    ],
    rows,
  );
}

function verdict(s: LineSummary, duckdb: number | undefined): string {
  const slow = s.line.targetRowsPerSecond !== undefined && s.rowsPerSecond < s.line.targetRowsPerSecond;
  const behind =
    s.line.targetOfDuckdb !== undefined &&
    duckdb !== undefined &&
    s.rowsPerSecond < s.line.targetOfDuckdb * duckdb;
  const fat = s.peakRssMb > s.line.rssLimitMb;
  if (!slow && !behind && !fat) return 'ok';
  return [
    slow ? 'short' : '',
    behind ? `< ${s.line.targetOfDuckdb?.toFixed(2)}× duckdb` : '',
    fat ? `RSS > ${s.line.rssLimitMb}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

export function formatScaleTable(scale: readonly ScaleSummary[]): string {
  const rows = scale.map(({ size, summary: s }) => [
    int(size),
    int(s.rowsPerSecond),
    ((s.wallMs * 1000) / Math.max(1, s.rows)).toFixed(2),
    secs(s.wallMs),
    secs(s.cpuMs),
    s.peakRssMb.toFixed(0),
    s.peakRssMb > s.line.rssLimitMb ? `RSS > ${s.line.rssLimitMb}` : 'ok',
  ]);
  const name = scale[0]?.summary.line.name ?? '';
  return `${name}\n${table(['rows', 'rows/s', 'µs/row', 'wall s', 'CPU s', 'peak RSS MB', ''], rows)}`;
}

/** `split/unsplit time ratio` of the --split lines (wall time, medians), when both were measured. */
export function splitRatio(summaries: readonly LineSummary[]): string | undefined {
  const split = summaries.find((s) => s.line.kind === 'split');
  const whole = summaries.find((s) => s.line.kind !== 'split' && s.line.divisions === split?.line.divisions);
  if (split === undefined || whole === undefined) return undefined;
  return `split/unsplit time ratio (${split.line.divisions ?? '?'} divisions): ${(split.wallMs / whole.wallMs).toFixed(2)}× (${secs(split.wallMs)} s / ${secs(whole.wallMs)} s), peak RSS ${split.peakRssMb.toFixed(0)} MB / ${whole.peakRssMb.toFixed(0)} MB`;
}

/** The sheet XML target: bytes of the Shifts sheet per shift row, uncompressed. */
export const SHEET_BYTES_TARGET = 900;

/** One line per workbook line: its Shifts sheet's bytes per shift row (medians), beside the target. */
export function formatSheetBytes(summaries: readonly LineSummary[]): string | undefined {
  const lines = summaries.flatMap((s) => {
    const sizes = s.runs.flatMap((r) => (r.sheetBytesPerRow === undefined ? [] : [r.sheetBytesPerRow]));
    if (sizes.length === 0) return [];
    const xml = median(sizes.map((size) => size.xml));
    const compressed = median(sizes.map((size) => size.compressed));
    const verdict = xml <= SHEET_BYTES_TARGET ? 'ok' : 'over';
    return [
      `${s.line.name}: ${int(xml)} B of sheet XML per shift row (${int(compressed)} B deflated), target ≤ ${SHEET_BYTES_TARGET} B: ${verdict}`,
    ];
  });
  return lines.length === 0 ? undefined : `Shifts sheet bytes per row\n${lines.join('\n')}`;
}
