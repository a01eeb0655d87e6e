// The suite's table: each scenario appends one row (JSON lines, so rows from every test file reach
// the printing teardown), then the teardown prints them.

import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export interface ScenarioRow {
  readonly group: string;
  readonly scenario: string;
  readonly outcome: string;
  /** Row counts: null where the scenario moves no rows (bad input, security checks). */
  readonly expected: number | null;
  readonly exported: number | null;
  readonly lost: number | null;
  readonly duplicates: number | null;
  readonly ms: number;
  readonly passed: boolean;
  /** The scenario file that recorded the row (absent for the teardown's own row). */
  readonly file?: string;
}

function resultsFile(): string {
  const file = process.env['RELIABILITY_RESULTS'];
  if (file === undefined || file === '')
    throw new Error('RELIABILITY_RESULTS is not set: run through npm run test:reliability');
  return file;
}

export function recordRow(row: ScenarioRow): void {
  appendFileSync(resultsFile(), `${JSON.stringify(row)}\n`);
}

export function readRows(file: string): ScenarioRow[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ScenarioRow);
}

const HEADERS = [
  'group',
  'scenario',
  'outcome',
  'rows expected',
  'rows exported',
  'rows lost',
  'duplicate rows',
  'time',
];

function count(n: number | null): string {
  return n === null ? '—' : n.toLocaleString('en-US');
}

/** A Markdown table: printed at the end of a run, and written into docs/reliability.md. */
export function formatTable(rows: readonly ScenarioRow[]): string {
  const cells = rows.map((r) => [
    r.group,
    r.scenario,
    `${r.passed ? 'ok' : 'FAIL'}: ${r.outcome}`,
    count(r.expected),
    count(r.exported),
    count(r.lost),
    count(r.duplicates),
    `${(r.ms / 1000).toFixed(1)} s`,
  ]);
  const line = (c: readonly string[]): string => `| ${c.map((x) => x.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(HEADERS), line(HEADERS.map(() => '---')), ...cells.map(line)].join('\n');
}
