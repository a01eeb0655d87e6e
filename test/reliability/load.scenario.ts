// Load: 200 control-API requests in one burst for 50 distinct one-day periods (each
// asked four times), against `shift-export api` and two `shift-export worker` children. Each
// distinct period must be exported exactly once (one job, one attempt, one "export published" log
// line), every export complete; API latency p50/p99 and the workers' peak RSS are printed.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { createSandboxReport, type RunningSandbox } from 'wfm-sandbox';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startApiChild, type ApiChild } from './support/api-child.js';
import { checkLocalExport } from './support/exported-ids.js';
import { localStartDate } from './support/expected-rows.js';
import { openQueueWorld, workerReady, type QueueWorld } from './support/queue-world.js';
import { scenario } from './support/scenario.js';
import { sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'load';
const API_TOKEN = 'api-token-load-0a1b2c3d4e5f';
const PERIODS = 50;
const REQUESTS = 200;
const SHAPE = sourceShape(15_000, { days: PERIODS });
const MAX_WORKER_RSS_MB = 600;

let redis: RedisServer;
let sandbox: RunningSandbox;
let world: QueueWorld;
let api: ApiChild;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(SHAPE)]);
  world = await openQueueWorld('load', redis.url, sandbox, { WORKER_CONCURRENCY: '2' });
  api = await startApiChild('load', { ...world.harness.env, API_TOKENS: API_TOKEN });
});

afterAll(async () => {
  await api?.stop();
  await world?.finish();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

/** Peak resident set size of a process, in MiB (Linux /proc). */
function peakRssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

describe('load', () => {
  it('exports each of 50 periods exactly once under a burst of 200 API requests', () =>
    scenario(GROUP, '200 API requests, 50 distinct periods', async () => {
      const last = parseDay(SHAPE.endDate) ?? 0;
      const days = Array.from({ length: PERIODS }, (_, i) => formatDay(last - i));
      const expected = new Map<string, Set<number>>(days.map((d) => [d, new Set<number>()]));
      for (const row of createSandboxReport(SHAPE))
        expected.get(localStartDate(row.start_time, row.start_time_offset))?.add(row.id);

      const workers = [world.worker(), world.worker()];
      await Promise.all(workers.map((w) => workerReady(w)));
      const latencies: number[] = [];
      const responses = await Promise.all(
        Array.from({ length: REQUESTS }, async (_, i) => {
          const day = days[(i * 7) % PERIODS] ?? SHAPE.endDate;
          const started = performance.now();
          const r = await fetch(`${api.base}/exports`, {
            method: 'POST',
            headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ from: day, to: day, formats: ['csv'] }),
          });
          const body = (await r.json()) as { jobId?: string };
          latencies.push(performance.now() - started);
          return { day, status: r.status, jobId: body.jobId ?? '' };
        }),
      );
      const bad = responses.filter((r) => r.status !== 202 && r.status !== 200);
      if (bad.length > 0) throw new Error(`${bad.length} requests answered ${bad[0]?.status}`);
      const jobs = new Map<string, string>();
      for (const r of responses) {
        const known = jobs.get(r.day);
        if (known !== undefined && known !== r.jobId) throw new Error(`two jobs for ${r.day}`);
        jobs.set(r.day, r.jobId);
      }
      if (jobs.size !== PERIODS) throw new Error(`${jobs.size} jobs for ${PERIODS} periods`);
      const created = responses.filter((r) => r.status === 202).length;

      const queue = world.harness.producer.queue;
      const events = await world.events();
      let expectedRows = 0;
      let exported = 0;
      let lost = 0;
      let duplicates = 0;
      for (const [day, jobId] of jobs) {
        const outcome = await waitForJob(queue, events, jobId);
        if (outcome.state !== 'completed') throw new Error(`${day}: ${outcome.reason}`);
        const job = await queue.getJob(jobId);
        if (job?.attemptsStarted !== 1) throw new Error(`${day}: ${job?.attemptsStarted} attempts`);
        const ids = expected.get(day) ?? new Set<number>();
        const check = await checkLocalExport(world.dest, day, day, ids);
        expectedRows += ids.size;
        exported += check.exported;
        lost += check.lost;
        duplicates += check.duplicates;
      }
      const published = workers
        .flatMap((w) => w.stderr().split('\n'))
        .filter((l) => l.includes('"msg":"export published"'));
      if (published.length !== PERIODS)
        throw new Error(`${published.length} exports published for ${PERIODS} periods`);
      const rss = Math.max(...workers.map((w) => peakRssMb(w.child.pid)));
      if (rss > MAX_WORKER_RSS_MB) throw new Error(`worker peak RSS ${rss.toFixed(0)} MB`);
      latencies.sort((a, b) => a - b);
      return {
        outcome: `${PERIODS} jobs (${created} × 202, ${REQUESTS - created} × 200), each exported once; API p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms; worker peak RSS ${rss.toFixed(0)} MB`,
        expected: expectedRows,
        exported,
        lost,
        duplicates,
      };
    }));
});
