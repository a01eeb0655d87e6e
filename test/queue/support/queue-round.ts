// One round of everything that talks to the queue, each as the built CLI in a child process, the way
// an operator runs them against whatever Redis shape the env describes (cluster, Sentinel, TLS):
// a worker, `enqueue --wait`, `status`, `backfill --wait` and the control API (POST an export,
// read it back, /healthz and /metrics). Used by the Redis-shape tests and the failover scenarios.

import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { BIN, cliEnv, runCli, type CliRun } from '../../support/cli.js';
import { freePort } from '../../support/redis-server.js';
import { SANDBOX_ADMIN_TOKEN } from '../../support/sandbox.js';
import { killAll, spawnWorker, type WorkerChild } from './worker-child.js';

export const API_TOKEN = 'queue-round-api-token-7d3e';

/**
 * Resolves with the first JSON log line of a worker child for which `matches` holds (readiness of
 * a spawned process, or a state it reached); fails when the worker exits or `timeoutMs` passes.
 */
export async function workerLogged(
  worker: WorkerChild,
  matches: (line: Record<string, unknown>) => boolean,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  for (;;) {
    const lines = worker.stderr().split('\n');
    // The last element is a line still being written.
    for (; seen < lines.length - 1; seen++) {
      const text = lines[seen]!;
      const line = jsonLine(text);
      if (line !== undefined && matches(line)) return line;
    }
    if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.stderr().trim()}`);
    if (Date.now() > deadline) throw new Error(`worker did not log that: ${worker.stderr().trim()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function jsonLine(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Resolves once a worker child has logged that it started. */
export async function workerStarted(worker: WorkerChild, timeoutMs = 30_000): Promise<void> {
  await workerLogged(worker, (line) => line['msg'] === 'worker started', timeoutMs);
}

/** Starts `shift-export worker` with `env` and waits until it says it started. */
export async function startWorkerChild(env: Record<string, string>): Promise<WorkerChild> {
  const worker = spawnWorker(env);
  await workerStarted(worker);
  return worker;
}

export { killAll as stopWorkerChildren };

/** `shift-export <args>` with `env`; fails the test with its output when it does not exit 0. */
export async function cliOk(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const r = await runCli(args, cliEnv(env), 120_000);
  if (r.code !== 0)
    throw new Error(`shift-export ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()} ${r.stdout.trim()}`);
  return r;
}

export interface ApiChild {
  readonly base: string;
  call(path: string, body?: object): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

/** `shift-export api` on a free loopback port, ready once /healthz answers 200. */
export async function startApi(env: Record<string, string>): Promise<ApiChild> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'api'], {
    env: cliEnv({ ...env, API_TOKENS: API_TOKEN, API_HOST: '127.0.0.1', API_PORT: String(port) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const base = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const call = async (path: string, body?: object): Promise<{ status: number; text: string }> => {
    const r = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${API_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: r.status, text: await r.text() };
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited (${child.exitCode}): ${stderr.trim()}`);
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API did not become healthy within 30 s: ${stderr.trim()}`);
    }
    // Readiness polling of a process we just spawned, not test synchronisation.
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, call, stop };
}

/** The job id `enqueue` printed first on stdout. */
export function jobIdOf(stdout: string): string {
  const id = /^(export-\S+|backfill-\S+)/m.exec(stdout)?.[1];
  if (id === undefined) throw new Error(`no job id in: ${stdout}`);
  return id;
}

/**
 * A round's settings beside the Redis shape's own (`redis`): the sandbox, a folder, CSV only, one
 * upstream attempt, short locks and backoff, and the nightly scheduler on (its keys must share the
 * queue's slot too). REDIS_URL points at a closed port, so only the shape's variables can work.
 */
export function queueRoundEnv(
  redis: Record<string, string>,
  sandboxUrl: string,
  dest: string,
): Record<string, string> {
  return {
    REDIS_URL: 'redis://127.0.0.1:1',
    ...redis,
    REDIS_CONNECT_TIMEOUT_MS: '10000',
    WFM_BASE_URL: sandboxUrl,
    WFM_TOKEN: SANDBOX_ADMIN_TOKEN,
    WFM_RETRY_ATTEMPTS: '1',
    EXPORT_DEST: dest,
    EXPORT_FORMATS: 'csv',
    JOB_BACKOFF_MS: '100',
    WORKER_LOCK_DURATION_MS: '5000',
    WORKER_STALLED_INTERVAL_MS: '2000',
    NIGHTLY_ENABLED: 'true',
    LOG_LEVEL: 'info',
  };
}

/** The days of a full round in the Redis-shape tests. */
export const ROUND_DAYS: RoundDays = {
  enqueue: '2024-03-30',
  backfillFrom: '2024-03-27',
  backfillTo: '2024-03-28',
  api: '2024-03-29',
};

/** What a full round over ROUND_DAYS shows: each command's answer, and four exports completed. */
export function expectFullRound(round: RoundOutcome): void {
  expect(round.enqueue.stdout).toMatch(/shifts exported +\d+/);
  expect(round.status.stdout).toContain('completed');
  expect(round.backfill.stdout).toContain('backfill-2024-03-27_2024-03-28');
  expect(round.metrics).toMatch(/\nshift_export_exports_completed_total 4\n/);
}

export interface RoundDays {
  /** enqueue --wait */
  readonly enqueue: string;
  /** backfill --wait, two days from here */
  readonly backfillFrom: string;
  readonly backfillTo: string;
  /** POST /exports */
  readonly api: string;
}

export interface RoundOutcome {
  readonly enqueue: CliRun;
  readonly status: CliRun;
  readonly backfill: CliRun;
  readonly apiJobId: string;
  readonly metrics: string;
}

/**
 * With a worker already running on `env`'s queue: enqueue --wait, status, backfill --wait and an
 * export through the API, each to completion. Throws with the command's output on any failure.
 */
export async function runQueueRound(env: Record<string, string>, days: RoundDays): Promise<RoundOutcome> {
  const enqueue = await cliOk(['enqueue', '--from', days.enqueue, '--to', days.enqueue, '--wait'], env);
  const status = await cliOk(['status', jobIdOf(enqueue.stdout)], env);
  const backfill = await cliOk(
    ['backfill', '--from', days.backfillFrom, '--to', days.backfillTo, '--wait'],
    env,
  );
  const api = await startApi(env);
  try {
    const posted = await api.call('/exports', { from: days.api, to: days.api, formats: ['csv'] });
    if (posted.status !== 202) throw new Error(`POST /exports answered ${posted.status}: ${posted.text}`);
    const apiJobId = (JSON.parse(posted.text) as { jobId: string }).jobId;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = await api.call(`/exports/${apiJobId}`);
      if (job.status !== 200) throw new Error(`GET /exports/${apiJobId} answered ${job.status}: ${job.text}`);
      const state = (JSON.parse(job.text) as { state: string }).state;
      if (state === 'completed') break;
      if (state === 'failed' || Date.now() > deadline)
        throw new Error(`the API's export ended ${state}: ${job.text}`);
      // The job runs on the worker; its state is read through the API, as a client would.
      await new Promise((r) => setTimeout(r, 200));
    }
    const metrics = await api.call('/metrics');
    if (metrics.status !== 200) throw new Error(`GET /metrics answered ${metrics.status}`);
    return { enqueue, status, backfill, apiJobId, metrics: metrics.text };
  } finally {
    await api.stop();
  }
}
