// Owns the latest-run section of docs/reliability.md: after a run of the whole suite, the teardown
// writes the run's line (date, commit, machine, scenarios, duration) and its table between the
// markers, so the page always shows the last complete run and says where it came from. A run of
// some scenario files only leaves the page alone: its table would pass for the whole suite's.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { formatTable, type ScenarioRow } from './results.js';

export const RELIABILITY_DOC = fileURLToPath(new URL('../../../docs/reliability.md', import.meta.url));
const SCENARIO_DIR = fileURLToPath(new URL('../', import.meta.url));
export const TABLE_START = '<!-- reliability-table:start -->';
export const TABLE_END = '<!-- reliability-table:end -->';

export interface RunFacts {
  readonly startedAt: Date;
  readonly seconds: number;
  readonly failing: number;
}

/** The scenario files of the suite (`*.scenario.ts`), by file name. */
export function scenarioFiles(): string[] {
  return readdirSync(SCENARIO_DIR)
    .filter((name) => name.endsWith('.scenario.ts'))
    .sort();
}

/** The scenario files that recorded no row: empty when the whole suite ran. */
export function filesNotRun(rows: readonly ScenarioRow[]): string[] {
  const ran = new Set(rows.map((r) => r.file));
  return scenarioFiles().filter((name) => !ran.has(name));
}

function git(args: readonly string[]): string | undefined {
  try {
    return execFileSync('git', [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** `1947bbc`, `1947bbc with uncommitted changes`, or `unknown` outside a git checkout. */
function commitOfWorkTree(): string {
  const commit = git(['rev-parse', '--short', 'HEAD']);
  if (commit === undefined) return 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no']);
  return dirty === undefined || dirty === '' ? commit : `${commit} with uncommitted changes`;
}

/** The line above the table: when, on what, and how it went. */
export function latestRunLine(rows: readonly ScenarioRow[], facts: RunFacts): string {
  const when = facts.startedAt.toISOString().slice(0, 16).replace('T', ' ');
  const machine = `${availableParallelism()}-core ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${process.arch})`;
  const threads = process.env['EXPORT_THREADS'] ?? 'default (one per CPU)';
  return (
    `Latest run: ${when} UTC, commit ${commitOfWorkTree()}, ${machine}, Node ${process.version}, ` +
    `EXPORT_THREADS ${threads}: ${rows.length} scenarios in ${facts.seconds.toFixed(0)} s, ${facts.failing} failing.`
  );
}

/** `text` with everything between the two markers replaced by `body`. */
export function replaceBetweenMarkers(text: string, body: string): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/reliability.md has no ${TABLE_START} … ${TABLE_END} section`);
  return `${text.slice(0, start + TABLE_START.length)}\n${body}\n${text.slice(end)}`;
}

/** Writes the run into docs/reliability.md; returns why not when it does not. */
export function recordLatestRun(rows: readonly ScenarioRow[], facts: RunFacts): string | undefined {
  const missing = filesNotRun(rows);
  if (missing.length > 0) return `not the whole suite (no rows from ${missing.join(', ')})`;
  if (!existsSync(RELIABILITY_DOC)) return `${RELIABILITY_DOC} does not exist`;
  const text = readFileSync(RELIABILITY_DOC, 'utf8');
  const body = `${latestRunLine(rows, facts)}\n\n${formatTable(rows)}`;
  writeFileSync(RELIABILITY_DOC, replaceBetweenMarkers(text, body));
  return undefined;
}
