// `npm run bench:workers`: how throughput grows with worker processes. A backfill of 14 days
// (`backfill --wait`, one job per day) through one redis-server on this machine, with 1, 2 and 4
// `shift-export worker` processes (WORKER_CONCURRENCY=1 each), CSV to a local folder; the sandbox
// in its own process. Prints wall time of the backfill, rows exported (summed from the days'
// manifests) and rows/s overall. Nothing is recorded: the figures go to docs/performance.md by hand.
//
//   --rows N        report rows over the sandbox's 28 days (default 1,000,000: ~500k in 14 days)
//   --workers A,B   worker counts to measure (default 1,2,4)

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { BIN, startBenchSandbox } from './child-server.js';
import { startRedis } from './redis-child.js';

const FROM = '2024-03-18';
const DAYS = 14;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    workers: { type: 'string', default: '1,2,4' },
  },
});
const rows = Number(values.rows);
const workerCounts = values.workers.split(',').map(Number);
if (!Number.isInteger(rows) || rows < 1 || !workerCounts.every((n) => Number.isInteger(n) && n >= 1)) {
  process.stderr.write('bench:workers: --rows N and --workers A,B,.. take positive integers\n');
  process.exit(2);
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (err.includes('"msg":"worker started"')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}

/** The day `n` days after `day` (YYYY-MM-DD). */
function dayAfter(day: string, n: number): string {
  return formatDay((parseDay(day) ?? 0) + n);
}

interface Row {
  readonly workers: number;
  readonly seconds: number;
  readonly rows: number;
}

async function measure(workers: number, redisUrl: string, sandboxUrl: string): Promise<Row> {
  const dest = mkdtempSync(join(tmpdir(), 'bench-workers-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    LOG_LEVEL: 'info',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `{bench-${randomUUID()}}`,
    WFM_BASE_URL: sandboxUrl,
    WFM_TOKEN: 'sandbox-admin',
    EXPORT_DEST: dest,
    EXPORT_FORMATS: 'csv',
    NIGHTLY_ENABLED: 'false',
    WORKER_CONCURRENCY: '1',
  };
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(env)));
  try {
    const to = dayAfter(FROM, DAYS - 1);
    const started = performance.now();
    const backfill = spawn(process.execPath, [BIN, 'backfill', '--from', FROM, '--to', to, '--wait'], {
      env: { ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    backfill.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await exited(backfill);
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`backfill exited ${code}: ${err}`);
    let exported = 0;
    for (let i = 0; i < DAYS; i++) {
      const day = dayAfter(FROM, i);
      const manifest = JSON.parse(readFileSync(join(dest, `${day}_${day}`, 'manifest.json'), 'utf8')) as {
        counts: { exported: number };
      };
      exported += manifest.counts.exported;
    }
    return { workers, seconds, rows: exported };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map(exited));
    rmSync(dest, { recursive: true, force: true });
  }
}

const redis = await startRedis();
const sandbox = await startBenchSandbox(rows, 28);
try {
  const results: Row[] = [];
  for (const workers of workerCounts) {
    const row = await measure(workers, redis.url, sandbox.url);
    results.push(row);
    process.stdout.write(
      `${workers} worker(s): ${row.rows.toLocaleString('en-US')} rows in ${row.seconds.toFixed(1)} s\n`,
    );
  }
  const base = results[0]!;
  const lines = [
    `Backfill of ${DAYS} days (${FROM}..${dayAfter(FROM, DAYS - 1)}), CSV, one redis-server, ${rows.toLocaleString('en-US')}-row sandbox:`,
    '',
    '| workers | wall time | rows | rows/s overall | vs. first |',
    '|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.workers} | ${r.seconds.toFixed(1)} s | ${r.rows.toLocaleString('en-US')} | ${Math.round(r.rows / r.seconds).toLocaleString('en-US')} | ${(base.seconds / r.seconds).toFixed(2)}× |`,
    ),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
} finally {
  await sandbox.stop();
  await redis.stop();
}
