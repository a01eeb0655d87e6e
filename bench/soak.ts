// The soak line, `npm run bench -- --soak [--soak-exports N] [--soak-rows N] [--formats F]`: one
// `shift-export worker` process over a redis-server started here, the sandbox as its upstream,
// runs N exports back to back (default 300). After each export the worker's RSS is read from
// /proc, at the same point each time (once the job's completed event arrived: the export thread and
// the threads that worked its rows have ended by then), with where it lies (process-memory.ts:
// glibc's thread arenas, the rest); its duration is the worker's own (the job's processedOn to finishedOn). The next export
// is queued when the previous one's completion event arrives (QueueEvents), never after a sleep.
// Each export goes to a folder of its own (so each is a new job, not a re-run of one), removed
// once it completed: the disk stays small whatever N.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import type { ExportFormat } from '../src/domain/export-format.js';
import type { Period } from '../src/domain/period.js';
import { exportJobData } from '../src/queue/export-job-data.js';
import { exportJobId } from '../src/queue/export-job-id.js';
import { EXPORT_QUEUE_NAME, JOB_NAMES } from '../src/queue/queue-names.js';
import { BIN, shebangEnv, shebangFlags, startBenchSandbox, stopChild } from './child-server.js';
import { processMemory } from './process-memory.js';
import { startRedis } from './redis-child.js';
import type { SoakSample } from './soak-summary.js';

const TOKEN = 'sandbox-admin';
const PREFIX = '{bench-soak}';

export interface SoakOptions {
  readonly exports: number;
  /** Report rows of each export (the sandbox's rows, one period). */
  readonly rows: number;
  readonly days: number;
  readonly period: Period;
  readonly formats: readonly ExportFormat[];
  /** Settings of the worker over the bench's own environment (e.g. EXPORT_THREADS). */
  readonly env?: Readonly<Record<string, string>>;
  /** Called after each export. */
  readonly onSample?: (sample: SoakSample) => void;
}

/** The RSS of process `pid`, MB (VmRSS of /proc/<pid>/status: every thread of the process). */
export function processRssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/**
 * Starts `shift-export worker` as the bin's shebang starts it (its V8 flag; `env` has its
 * environment), with the bench's own
 * node flags; resolves once it logged "worker started".
 */
function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess & { readonly pid: number }> {
  const worker = spawn(process.execPath, [...shebangFlags(), ...process.execArgv, BIN, 'worker'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    // Only the log's tail is kept (for the error below): the stream is drained for as long as the
    // worker runs, so a chatty worker never blocks on a full pipe.
    let tail = '';
    let started = false;
    worker.stderr?.setEncoding('utf8').on('data', (d: string) => {
      tail = (tail + d).slice(-4000);
      if (!started && tail.includes('"worker started"')) {
        started = true;
        resolve(worker as ChildProcess & { readonly pid: number });
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!started) reject(new Error(`the worker exited (${code}) before it started: ${tail}`));
    });
  });
}

/** Runs the soak; returns one sample per export, in order. */
export async function runSoak(options: SoakOptions): Promise<SoakSample[]> {
  const sandbox = await startBenchSandbox(options.rows, options.days);
  const redis = await startRedis();
  const root = mkdtempSync(join(tmpdir(), 'bench-soak-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // What the bin's first line sets before node (glibc's malloc settings).
    ...shebangEnv(),
    // info: the worker says when it has started (its per-job lines are drained, not kept).
    LOG_LEVEL: 'info',
    REDIS_URL: redis.url,
    QUEUE_PREFIX: PREFIX,
    NIGHTLY_ENABLED: 'false',
    WORKER_CONCURRENCY: '1',
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: TOKEN,
    EXPORT_DEST: root,
    ...options.env,
  };
  let worker: (ChildProcess & { readonly pid: number }) | undefined;
  const connection = { url: redis.url, maxRetriesPerRequest: null };
  const queue = new Queue(EXPORT_QUEUE_NAME, { connection, prefix: PREFIX });
  const events = new QueueEvents(EXPORT_QUEUE_NAME, { connection, prefix: PREFIX });
  try {
    worker = await startWorker(env);
    await events.waitUntilReady();
    const samples: SoakSample[] = [];
    for (let index = 1; index <= options.exports; index++) {
      const dest = join(root, `export-${index}`);
      const data = exportJobData(options.period.from, options.period.to, options.formats, dest);
      const jobId = exportJobId(options.period, options.formats, dest);
      const job = await queue.add(JOB_NAMES.exportPeriod, data, { jobId, attempts: 1 });
      // Resolves on the job's completed event (or at once if it finished before we listened);
      // rejects with the worker's reason when it failed.
      await job.waitUntilFinished(events).catch((error: unknown) => {
        throw new Error(
          `soak export ${index} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      const rssMb = processRssMb(worker.pid);
      const memory = processMemory(worker.pid);
      const done = await queue.getJob(jobId);
      if (done?.processedOn === undefined || done.finishedOn === undefined)
        throw new Error(`export ${index} (${jobId}) completed without its processing times`);
      const sample = { index, durationMs: done.finishedOn - done.processedOn, rssMb, memory };
      samples.push(sample);
      options.onSample?.(sample);
      rmSync(dest, { recursive: true, force: true });
    }
    return samples;
  } finally {
    if (worker !== undefined) await stopChild(worker);
    await events.close();
    await queue.close();
    await redis.stop();
    await sandbox.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
