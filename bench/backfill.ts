// `npm run bench:backfill`: how much faster a worker finishes a backfill when it runs exports
// concurrently (WORKER_CONCURRENCY) on threads of their own. Against the sandbox and a
// redis-server started here, each run starts a fresh `shift-export worker`, times
// `shift-export backfill --wait` from enqueue to index, and reads the worker's CPU time.
//
//   --days N          days in the backfill (default 8)
//   --rows-per-day N  report rows per day (default 40,000)
//   --formats F       csv, xlsx or csv,xlsx (default csv,xlsx)
//   --concurrency L   the WORKER_CONCURRENCY values compared (default 1,2), run in turn
//   --runs N          runs per value, medians printed (default 3)
//
// Needs `redis-server` on the PATH.

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { median } from './bench-lines.js';
import { BIN, SANDBOX_END_DATE as END_DATE, startBenchSandbox, stopChild } from './child-server.js';
import { startRedis } from './redis-child.js';

const TOKEN = 'sandbox-admin';
const run = promisify(execFile);

const { values } = parseArgs({
  options: {
    days: { type: 'string', default: '8' },
    'rows-per-day': { type: 'string', default: '40000' },
    formats: { type: 'string', default: 'csv,xlsx' },
    concurrency: { type: 'string', default: '1,2' },
    runs: { type: 'string', default: '3' },
  },
});
const days = Number(values.days);
const rowsPerDay = Number(values['rows-per-day']);
const runs = Number(values.runs);
const concurrencies = values.concurrency.split(',').map(Number);
const end = parseDay(END_DATE);
if (end === undefined) throw new Error('END_DATE is not a day');
const from = formatDay(end - (days - 1));

/** User + system CPU seconds of a process so far (all its threads), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat; here, after "pid (comm) ", at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface BackfillRun {
  readonly concurrency: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
}

async function backfillOnce(sandboxUrl: string, redisUrl: string, concurrency: number): Promise<BackfillRun> {
  const dest = mkdtempSync(join(tmpdir(), 'bench-backfill-'));
  const env = {
    ...process.env,
    // info: the worker says when it has started.
    LOG_LEVEL: 'info',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `bench-${Date.now()}-${concurrency}`,
    NIGHTLY_ENABLED: 'false',
    WORKER_CONCURRENCY: String(concurrency),
    WFM_BASE_URL: sandboxUrl,
    WFM_TOKEN: TOKEN,
    EXPORT_DEST: dest,
  };
  const worker = spawn(process.execPath, [BIN, 'worker'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    worker.stderr.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      if (log.includes('"worker started"')) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`the worker exited (${code}): ${log}`)));
  });
  try {
    const cpuBefore = cpuSeconds(worker.pid ?? 0);
    const started = performance.now();
    await run(
      process.execPath,
      [BIN, 'backfill', '--from', from, '--to', END_DATE, '--format', values.formats, '--wait'],
      { env: { ...env, LOG_LEVEL: 'warn' } },
    );
    const seconds = (performance.now() - started) / 1000;
    return { concurrency, seconds, cpuSeconds: cpuSeconds(worker.pid ?? 0) - cpuBefore };
  } finally {
    await stopChild(worker);
    rmSync(dest, { recursive: true, force: true });
  }
}

const sandbox = await startBenchSandbox(rowsPerDay * 28, 28);
const redis = await startRedis();
try {
  const results: BackfillRun[] = [];
  // In turn, so that a machine whose speed drifts drifts for every value alike.
  for (let i = 0; i < runs; i++)
    for (const concurrency of concurrencies) {
      const result = await backfillOnce(sandbox.url, redis.url, concurrency);
      process.stderr.write(
        `run ${i + 1}: WORKER_CONCURRENCY=${concurrency} ${result.seconds.toFixed(2)} s, worker CPU ${result.cpuSeconds.toFixed(2)} s\n`,
      );
      results.push(result);
    }
  const rows = rowsPerDay * days;
  const base = median(results.filter((r) => r.concurrency === concurrencies[0]).map((r) => r.seconds));
  console.log(
    `backfill of ${days} days × ~${rowsPerDay} rows (${values.formats}), ${cpus().length} cores, medians of ${runs}`,
  );
  console.log('| WORKER_CONCURRENCY | wall s | rows/s | worker CPU s | speed-up |');
  console.log('|---|---|---|---|---|');
  for (const concurrency of concurrencies) {
    const mine = results.filter((r) => r.concurrency === concurrency);
    const seconds = median(mine.map((r) => r.seconds));
    const cpu = median(mine.map((r) => r.cpuSeconds));
    console.log(
      `| ${concurrency} | ${seconds.toFixed(2)} | ${Math.round(rows / seconds)} | ${cpu.toFixed(2)} | ${(base / seconds).toFixed(2)}× |`,
    );
  }
} finally {
  await redis.stop();
  await sandbox.stop();
}
