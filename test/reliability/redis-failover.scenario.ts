// Redis failover: the primary holding the queue dies while an export runs and
// `enqueue --wait` waits for it — on a 6-node Redis Cluster (the queue slot's primary) and behind
// Sentinels (the primary). A replica is promoted; the running export completes or is retried with
// no row lost or duplicated, `enqueue --wait` completes or fails with one line, the worker keeps
// running, and the next export completes.

import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli, startCli } from '../support/cli.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { testPrefix } from '../support/redis-server.js';
import { startRedisSentinelGroup } from '../support/redis-sentinel.js';
import { startWorkerChild, stopWorkerChildren } from '../queue/support/queue-round.js';
import { checkLocalExport } from './support/exported-ids.js';
import { expectedIds } from './support/expected-rows.js';
import { evidenceFolder, keepText, WFM_SECRET_TOKEN } from './support/evidence.js';
import { scenario, type ScenarioOutcome } from './support/scenario.js';
import { REPORT_ROWS, sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'redis';
const FROM = '2024-03-26';
const TO = '2024-03-30';
const NEXT = '2024-03-31';
const SHAPE = sourceShape(REPORT_ROWS);

let sandbox: RunningSandbox;
let expected: Set<number>;

beforeAll(async () => {
  sandbox = await startScenarioSandbox(SHAPE);
  expected = expectedIds(SHAPE, FROM, TO);
});

afterAll(async () => {
  await sandbox?.close();
});

interface Failover {
  /** Kills the node holding the queue under `prefix`; resolves, saying what happened, once a replica took over. */
  killQueuePrimary(prefix: string): Promise<string>;
}

/**
 * The failover scenario on any Redis shape: `env` says how to reach it, `failover` kills the
 * queue's primary and waits for the promotion.
 */
async function failoverDuringExport(
  name: string,
  redisEnv: Record<string, string>,
  failover: Failover,
): Promise<ScenarioOutcome> {
  const dest = evidenceFolder(name);
  const prefix = testPrefix();
  const env = {
    ...redisEnv,
    REDIS_URL: 'redis://127.0.0.1:1',
    QUEUE_PREFIX: prefix,
    REDIS_CONNECT_TIMEOUT_MS: '10000',
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: WFM_SECRET_TOKEN,
    WFM_RETRY_ATTEMPTS: '3',
    WFM_RETRY_BASE_DELAY_MS: '50',
    EXPORT_DEST: dest,
    EXPORT_FORMATS: 'csv',
    JOB_BACKOFF_MS: '100',
    WORKER_LOCK_DURATION_MS: '10000',
    WORKER_STALLED_INTERVAL_MS: '5000',
    NIGHTLY_ENABLED: 'false',
    LOG_LEVEL: 'info',
  };
  const worker = await startWorkerChild(env);
  try {
    // Slow pages keep the export running while the primary dies.
    sandbox.setFaults({ wfm_timers: { latencyMs: 2000 } });
    const enqueue = startCli(['enqueue', '--from', FROM, '--to', TO, '--wait'], cliEnv(env));
    const { child, exited } = enqueue;
    const deadline = Date.now() + 30_000;
    // `enqueue --wait` prints each phase on stderr: "fetching" says the export is under way.
    while (!enqueue.stderr().includes('fetching') && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    if (!enqueue.stderr().includes('fetching'))
      throw new Error(`the export did not start: ${enqueue.stderr().trim()}`);
    const killed = await failover.killQueuePrimary(prefix);
    sandbox.clearFaults();
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await exited;
    clearTimeout(timer);
    keepText(`${name}-enqueue-wait`, `${enqueue.stdout()}\n${enqueue.stderr()}`);
    const waitLines = enqueue.stderr().trim().split('\n');
    let waitOutcome: string;
    if (code === 0) {
      waitOutcome = 'enqueue --wait completed';
    } else {
      // Allowed: one clear last line. The job itself goes on: wait for it again.
      const last = waitLines.at(-1) ?? '';
      if (code === null || !/^shift-export enqueue: /.test(last))
        throw new Error(`enqueue --wait ended ${code}: ${enqueue.stderr().trim().slice(-300)}`);
      const again = await runCli(['enqueue', '--from', FROM, '--to', TO, '--wait'], cliEnv(env), 120_000);
      if (again.code !== 0) throw new Error(`the export did not complete: ${again.stderr.trim()}`);
      waitOutcome = `enqueue --wait exit ${code} (${last.slice(0, 50)}…), the job completed`;
    }
    const check = await checkLocalExport(dest, FROM, TO, expected);
    const next = await runCli(['enqueue', '--from', NEXT, '--to', NEXT, '--wait'], cliEnv(env), 120_000);
    keepText(`${name}-next`, `${next.stdout}\n${next.stderr}`);
    if (next.code !== 0) throw new Error(`the next export failed: ${next.stderr.trim()}`);
    if (worker.child.exitCode !== null || worker.child.signalCode !== null)
      throw new Error(`the worker exited: ${worker.stderr().slice(-500)}`);
    return {
      outcome: `${killed}; ${waitOutcome}; next export completed, worker still running`,
      expected: expected.size,
      ...check,
    };
  } finally {
    sandbox.clearFaults();
    await stopWorkerChildren();
    keepText(`${name}-worker`, worker.stderr());
  }
}

/**
 * Room for the worst case (a wait that is killed after 90 s, then the export asked for again), so a
 * scenario that fails still ends, and stops its worker, before the next one starts.
 */
const FAILOVER_TEST_MS = 300_000;

describe('redis failover', () => {
  it(
    'completes the running export when the queue slot primary of a Redis Cluster dies',
    () =>
      scenario(GROUP, 'Cluster: queue slot primary killed mid-export', async () => {
        const cluster = await startRedisCluster();
        try {
          return await failoverDuringExport(
            'cluster-failover',
            // Every node as a seed, as production would list them: the one killed is among them.
            { REDIS_CLUSTER_NODES: cluster.ports.map((p) => `127.0.0.1:${p}`).join(',') },
            {
              async killQueuePrimary(prefix) {
                const slot = await cluster.keySlot(prefix);
                const primary = await cluster.primaryOf(slot);
                const started = Date.now();
                await cluster.kill(primary);
                await cluster.waitForNewPrimary(slot, primary);
                return `slot ${slot} primary killed, replica promoted in ${((Date.now() - started) / 1000).toFixed(1)} s`;
              },
            },
          );
        } finally {
          await cluster.close();
        }
      }),
    FAILOVER_TEST_MS,
  );

  it(
    'completes the running export when the primary behind Sentinels dies',
    () =>
      scenario(GROUP, 'Sentinel: primary killed mid-export', async () => {
        const group = await startRedisSentinelGroup();
        try {
          return await failoverDuringExport(
            'sentinel-failover',
            { REDIS_SENTINELS: group.sentinels, REDIS_SENTINEL_NAME: group.name },
            {
              async killQueuePrimary() {
                const primary = await group.primary();
                const started = Date.now();
                await group.kill(primary);
                await group.waitForNewPrimary(primary);
                return `primary killed, replica promoted in ${((Date.now() - started) / 1000).toFixed(1)} s`;
              },
            },
          );
        } finally {
          await group.close();
        }
      }),
    FAILOVER_TEST_MS,
  );
});
