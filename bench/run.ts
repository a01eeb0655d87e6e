// `npm run bench`: the export measured against the sandbox, every run in its own process.
//
//   --rows N          report rows (default 1,000,000)
//   --formats F       e2e line(s): csv, xlsx or csv,xlsx (default: csv and csv,xlsx)
//   --dest local|s3   where e2e exports go (s3: an in-memory fauxqs in another process)
//   --runs N          runs per line, medians printed (default 3; 1 with --scale)
//   --scale           e2e at 100k, 300k, 1M and 3M rows: time per row and peak RSS
//   --sizes A,B,..    the sizes of --scale instead (e.g. 100000,300000)
//   --cardinality     adds the line `csv e2e, user per row` (a sandbox whose every row is its own
//                     user); with --scale, that line at every size
//   --threads N       DuckDB's threads on the duckdb line (default 2)
//   --client          the client alone (ceiling, ingest): rows/s and peak RSS, RSS < 150 MB
//   --split           csv,xlsx whole and split by division, on a sandbox of 200 divisions:
//                     rows/s, peak RSS (split: at most 350 MB) and the time ratio split/unsplit
//   --lines K,K,..    only these lines, by kind (ceiling, ingest, stages, duckdb, csv, xlsx,
//                     csv,xlsx is written csv+xlsx here, csv+xlsx@1 (at EXPORT_THREADS=1),
//                     csv+xlsx@statistics (EXPORT_STATISTICS_THREAD=true), parquet, csv+parquet, xlsx-render, cardinality; csv+xlsx@10 and split@10: the
//                     export whole and split over 10 divisions, with their time ratio)
//   --soak            the soak line: one `shift-export worker` over a redis-server runs exports back
//                     to back (csv,xlsx unless --formats); its RSS after export 30 and after the last
//                     (every 30 between), their ratio, and each export's duration with its trend
//                     (bench/soak.ts); printed, not recorded
//   --soak-exports N  exports in the soak (default 300)
//   --soak-rows N     report rows of each soak export (default 10,000)
//   --no-record       print only: no bench/results/*.json, no history row in docs/performance.md (CI smoke)
//
// The sandbox runs in a child process; each measured run in another (measure.ts), so its CPU time
// and peak RSS are its own. For the duckdb line the report is downloaded once into a temp file
// first (report-file.ts), and DuckDB reads that.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import type { Period } from '../src/domain/period.js';
import { requestedFormats } from '../src/queue/export-request.js';
import {
  clientLines,
  e2eLine,
  headlineLines,
  linesByKind,
  median,
  rowsPerSecond,
  splitLines,
  type BenchLine,
} from './bench-lines.js';
import {
  SANDBOX_END_DATE as END_DATE,
  shebangEnv,
  shebangFlags,
  startBenchSandbox,
  startChildServer,
  type ChildServer,
} from './child-server.js';
import type { MeasureInput } from './measure-kinds.js';
import type { MeasureResult } from './measure.js';
import {
  formatLineTable,
  formatSheetBytes,
  formatScaleTable,
  splitRatio,
  type LineSummary,
  type ScaleSummary,
} from './report.js';
import { downloadReport, type ReportFile } from './report-file.js';
import { recordResults } from './results.js';
import { runSoak } from './soak.js';
import { formatSoak, summariseSoak } from './soak-summary.js';

const MEASURE = fileURLToPath(new URL('./measure.js', import.meta.url));
const S3_SERVER = fileURLToPath(new URL('./s3-server.js', import.meta.url));
const TOKEN = 'sandbox-admin';
const DAYS = 28;
const SCALE_ROWS = [100_000, 300_000, 1_000_000, 3_000_000];

const USAGE =
  'usage: npm run bench -- [--rows N] [--runs N] [--formats csv|xlsx|csv,xlsx] [--dest local|s3]\n' +
  '                        [--lines K,K..] [--scale [--sizes A,B..]] [--cardinality] [--threads N]\n' +
  '                        [--client] [--split] [--no-record] [--soak [--soak-exports N] [--soak-rows N]]\n' +
  '(each flag is described at the top of bench/run.ts and in docs/performance.md)';

/** A bad flag stops the bench with one line that names it. */
function usageError(message: string): never {
  process.stderr.write(`bench: ${message} (see npm run bench -- --help)\n`);
  process.exit(2);
}

/** What `choose` returns; a flag it finds bad (it throws) stops the bench like any bad flag. */
function orUsageError<T>(choose: () => T): T {
  try {
    return choose();
  } catch (error) {
    return usageError((error as Error).message);
  }
}

function parse() {
  return parseArgs({
    options: {
      rows: { type: 'string', default: '1000000' },
      formats: { type: 'string' },
      dest: { type: 'string', default: 'local' },
      runs: { type: 'string', default: '3' },
      scale: { type: 'boolean', default: false },
      client: { type: 'boolean', default: false },
      split: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      cardinality: { type: 'boolean', default: false },
      threads: { type: 'string', default: '2' },
      lines: { type: 'string' },
      soak: { type: 'boolean', default: false },
      'soak-exports': { type: 'string', default: '300' },
      'soak-rows': { type: 'string', default: '10000' },
      'no-record': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}

const { values } = orUsageError(parse);
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const rows = wholeNumber(values.rows, '--rows');
const runs = wholeNumber(values.runs, '--runs');
const duckdbThreads = wholeNumber(values.threads, '--threads');
if (values.dest !== 'local' && values.dest !== 's3')
  usageError(`--dest must be local or s3, not ${values.dest}`);
const lastDay = parseDay(END_DATE) ?? 0;
const period: Period = { from: formatDay(lastDay - DAYS + 1), to: END_DATE };

function wholeNumber(text: string, flag: string): number {
  if (!/^[1-9]\d*$/.test(text)) usageError(`${flag} must be a positive whole number, not ${text}`);
  return Number(text);
}

function measureOnce(input: MeasureInput, env: NodeJS.ProcessEnv): MeasureResult {
  // As the bin starts the product: its first line's V8 flag and environment (glibc's malloc
  // setting), then the bench's own flags (`node --flag dist/bench/run.js`).
  const flags = [...shebangFlags(), ...process.execArgv];
  const out = execFileSync(process.execPath, [...flags, MEASURE, JSON.stringify(input)], {
    encoding: 'utf8',
    env: { ...process.env, ...shebangEnv(), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const last = out.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as MeasureResult;
}

async function withServers<T>(
  reportRows: number,
  sandboxArgs: readonly string[],
  use: (sandbox: string, s3: { dest: string; env: NodeJS.ProcessEnv }) => T | Promise<T>,
): Promise<T> {
  const sandbox = await startBenchSandbox(reportRows, DAYS, sandboxArgs);
  let s3: ChildServer | undefined;
  try {
    let target = { dest: '', env: {} as NodeJS.ProcessEnv };
    if (values.dest === 's3') {
      s3 = await startChildServer([S3_SERVER]);
      target = {
        dest: 's3://bench/exports',
        env: {
          S3_ENDPOINT: s3.url,
          S3_FORCE_PATH_STYLE: 'true',
          AWS_ACCESS_KEY_ID: 'bench',
          AWS_SECRET_ACCESS_KEY: 'bench',
          AWS_REGION: 'us-east-1',
        },
      };
    }
    return await use(sandbox.url, target);
  } finally {
    await s3?.stop();
    await sandbox.stop();
  }
}

function summarise(line: BenchLine, results: MeasureResult[]): LineSummary {
  return {
    line,
    rows: results[0]?.rows ?? 0,
    rowsPerSecond: median(results.map((r) => rowsPerSecond(line, r))),
    wallMs: median(results.map((r) => r.wallMs)),
    cpuMs: median(results.map((r) => r.cpuMs)),
    serialFraction: results.every((r) => r.mainThreadCpuMs !== undefined)
      ? median(results.map((r) => (r.mainThreadCpuMs ?? 0) / Math.max(1, r.cpuMs)))
      : undefined,
    peakRssMb: Math.max(...results.map((r) => r.peakRssMb)),
    runs: results,
  };
}

/** The sandbox flags a line is measured against: a user per row, many divisions, or neither. */
function sandboxArgs(line: BenchLine): string[] {
  return [
    ...(line.userPerRow === true ? ['--user-per-row'] : []),
    ...(line.divisions === undefined ? [] : ['--divisions', String(line.divisions)]),
  ];
}

/** The lines in their order, each group of lines on one sandbox (same sandbox flags) measured on its own. */
async function measureLines(
  lines: readonly BenchLine[],
  reportRows: number,
  timesEach: number,
): Promise<LineSummary[]> {
  const summaries = new Map<BenchLine, LineSummary>();
  const variants = [...new Set(lines.map((line) => sandboxArgs(line).join(' ')))];
  for (const variant of variants) {
    const group = lines.filter((line) => sandboxArgs(line).join(' ') === variant);
    const measured = await measureOnSandbox(group, reportRows, timesEach, sandboxArgs(group[0] as BenchLine));
    group.forEach((line, i) => summaries.set(line, measured[i] as LineSummary));
  }
  return lines.map((line) => summaries.get(line) as LineSummary);
}

function measureOnSandbox(
  lines: readonly BenchLine[],
  reportRows: number,
  timesEach: number,
  args: readonly string[],
): Promise<LineSummary[]> {
  return withServers(reportRows, args, async (url, target) => {
    const scratch = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      let report: ReportFile | undefined;
      if (lines.some((line) => line.kind === 'duckdb')) {
        report = await downloadReport(url, TOKEN, period, join(scratch, 'report.json'));
        process.stderr.write(`  report downloaded for duckdb: ${report.rows} rows\n`);
      }
      return lines.map((line) => {
        const results: MeasureResult[] = [];
        for (let i = 0; i < timesEach; i++) {
          const input: MeasureInput = {
            kind: line.kind,
            url,
            token: TOKEN,
            period,
            rows: reportRows,
            dest: target.dest,
            ...(line.kind === 'duckdb' && report !== undefined
              ? { reportFile: report.path, reportRows: report.rows, threads: duckdbThreads }
              : {}),
          };
          results.push(measureOnce(input, line.kind === 'duckdb' ? {} : { ...target.env, ...line.env }));
          process.stderr.write(`  ${line.name} run ${i + 1}/${timesEach} done\n`);
        }
        return summarise(line, results);
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}

function machine(): Record<string, unknown> {
  const list = cpus();
  return {
    cpus: list.length,
    model: list[0]?.model ?? 'unknown',
    node: process.version,
    // V8 flags change what the bench measures (Node 24 defaults to a 64 MB young generation).
    nodeOptions: process.env['NODE_OPTIONS'] ?? '',
    platform: `${process.platform} ${process.arch}`,
    totalMemMb: Math.round(totalmem() / 2 ** 20),
    freeMemMbAtStart: Math.round(freemem() / 2 ** 20),
  };
}

const startedAt = new Date();
const facts = machine();
process.stderr.write(`bench: ${JSON.stringify(facts)}\n`);
if (values.soak) {
  const exports = wholeNumber(values['soak-exports'], '--soak-exports');
  const soakRows = wholeNumber(values['soak-rows'], '--soak-rows');
  const formats = orUsageError(() => requestedFormats(values.formats ?? 'csv,xlsx', '--formats'));
  process.stderr.write(
    `bench: soak, ${exports} exports of ${soakRows} rows (${formats.join(',')}), load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
  const samples = await runSoak({
    exports,
    rows: soakRows,
    days: DAYS,
    period,
    formats,
    onSample: (s) => {
      if (s.index % 10 === 0 || s.index === exports)
        process.stderr.write(
          `  export ${s.index}/${exports}: ${(s.durationMs / 1000).toFixed(2)} s, RSS ${s.rssMb.toFixed(1)} MB` +
            `${s.memory === undefined ? '' : ` (thread arenas ${s.memory.arenasMb.toFixed(1)} MB)`}, load ${loadavg()[0]?.toFixed(2)}\n`,
        );
    },
  });
  process.stdout.write(`${formatSoak(summariseSoak(samples))}\n`);
  process.stdout.write(
    `load average at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
} else if (values.scale) {
  const scale: ScaleSummary[] = [];
  const line = orUsageError(() =>
    values.cardinality ? linesByKind(['cardinality'])[0] : e2eLine(values.formats),
  );
  if (line === undefined) usageError('no line to scale');
  const sizes =
    values.sizes === undefined
      ? SCALE_ROWS
      : values.sizes.split(',').map((s) => wholeNumber(s.trim(), '--sizes'));
  for (const size of sizes) {
    process.stderr.write(`bench: ${line.name} at ${size} rows\n`);
    const [summary] = await measureLines([line], size, process.argv.includes('--runs') ? runs : 1);
    if (summary) scale.push({ size, summary });
  }
  process.stdout.write(`${formatScaleTable(scale)}\n`);
  if (!values['no-record'])
    recordResults({ startedAt, machine: facts, mode: 'scale', options: values, scale });
} else {
  const lines = orUsageError(() =>
    values.client
      ? clientLines()
      : values.split
        ? splitLines()
        : values.lines !== undefined
          ? linesByKind(values.lines.split(',').map((kind) => kind.trim().replace('+', ',')))
          : headlineLines(values.formats, values.cardinality),
  );
  process.stderr.write(
    `bench: ${rows} rows, ${runs} run(s) per line, period ${period.from}..${period.to}, dest ${values.dest}\n`,
  );
  const summaries = await measureLines(lines, rows, runs);
  process.stdout.write(`${formatLineTable(summaries)}\n`);
  const ratio = splitRatio(summaries);
  if (ratio !== undefined) process.stdout.write(`${ratio}\n`);
  const sheetBytes = formatSheetBytes(summaries);
  if (sheetBytes !== undefined) process.stdout.write(`\n${sheetBytes}\n`);
  // Targets missed are reported in the table, not as a failure: the bench measures, CI only
  // checks that it runs (a loaded machine would make a timed gate flaky).
  if (!values['no-record'])
    recordResults({
      startedAt,
      machine: facts,
      mode: values.client ? 'client' : 'lines',
      options: values,
      lines: summaries,
    });
}
