// Process faults: `shift-export worker` children over a real redis-server. A SIGKILLed
// worker's job is completed by another worker, complete and once; SIGTERM lets a running export
// finish within the grace period; two workers racing for one period export it once; SIGHUP with a
// broken EXPORTS_FILE keeps the schedules and the worker, whose scheduled run still exports. The moment a
// signal lands is found from the job's progress events; the upstream answers slowly (latencyMs) so
// the export is still under way then.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { JOB_NAMES } from '../../src/queue/queue-names.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { checkLocalExport } from './support/exported-ids.js';
import { evidenceFolder } from './support/evidence.js';
import { expectedIds } from './support/expected-rows.js';
import { QUICK_TAKEOVER_ENV } from '../queue/support/queue-harness.js';
import { fetching, openQueueWorld, workerReady, type QueueWorld } from './support/queue-world.js';
import { scenario, type ScenarioOutcome } from './support/scenario.js';
import { REPORT_ROWS, sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'process';
const FROM = '2024-03-26';
const TO = '2024-03-30';
const SHAPE = sourceShape(REPORT_ROWS);

let redis: RedisServer;
let sandbox: RunningSandbox;
let expected: Set<number>;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(SHAPE)]);
  expected = expectedIds(SHAPE, FROM, TO);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

function publishedLines(stderr: string): number {
  return stderr.split('\n').filter((l) => l.includes('"msg":"export published"')).length;
}

async function withWorld(
  name: string,
  body: (world: QueueWorld) => Promise<ScenarioOutcome>,
  env: Record<string, string> = {},
) {
  const world = await openQueueWorld(`process-${name}`, redis.url, sandbox, env);
  try {
    return await body(world);
  } finally {
    sandbox.clearFaults();
    await world.finish();
  }
}

describe('process faults', () => {
  it('completes the job of a SIGKILLed worker in another worker, complete and once', () =>
    scenario(GROUP, 'worker SIGKILLed mid-export', () =>
      withWorld(
        'sigkill',
        async (world) => {
          const events = await world.events();
          sandbox.setFaults({ wfm_timers: { latencyMs: 2500 } });
          const { jobId } = await enqueueExport(
            world.harness.producer.queue,
            exportJobData(FROM, TO, ['csv']),
          );
          const underWay = fetching(events, jobId);
          const first = world.worker();
          await underWay;
          first.child.kill('SIGKILL');
          await first.exited;
          sandbox.clearFaults();
          const second = world.worker();
          const outcome = await waitForJob(world.harness.producer.queue, events, jobId);
          if (outcome.state !== 'completed') throw new Error(`job failed: ${outcome.reason}`);
          const published = publishedLines(first.stderr()) + publishedLines(second.stderr());
          if (published !== 1) throw new Error(`published ${published} times`);
          const check = await checkLocalExport(world.dest, FROM, TO, expected);
          const job = await world.harness.producer.queue.getJob(jobId);
          return {
            outcome: `completed by the second worker (attempts started: ${job?.attemptsStarted})`,
            expected: expected.size,
            ...check,
          };
        },
        QUICK_TAKEOVER_ENV,
      ),
    ));

  it('lets a running export finish on SIGTERM and exits 0', () =>
    scenario(GROUP, 'SIGTERM during an export', () =>
      withWorld('sigterm', async (world) => {
        const events = await world.events();
        sandbox.setFaults({ wfm_timers: { latencyMs: 1500 } });
        const { jobId } = await enqueueExport(world.harness.producer.queue, exportJobData(FROM, TO, ['csv']));
        const underWay = fetching(events, jobId);
        const running = world.worker({ SHUTDOWN_GRACE_MS: '60000' });
        await underWay;
        running.child.kill('SIGTERM');
        const exit = await running.exited;
        if (exit.code !== 0) throw new Error(`worker exited ${exit.code ?? exit.signal}`);
        const job = await world.harness.producer.queue.getJob(jobId);
        const state = await job?.getState();
        if (state !== 'completed') throw new Error(`job is ${state} after a graceful stop`);
        const check = await checkLocalExport(world.dest, FROM, TO, expected);
        return { outcome: 'finished within the grace period, exit 0', expected: expected.size, ...check };
      }),
    ));

  it('hands a job back on SIGTERM when the grace period is too short', () =>
    scenario(GROUP, 'SIGTERM, grace period too short', () =>
      withWorld('sigterm-short', async (world) => {
        const events = await world.events();
        sandbox.setFaults({ wfm_timers: { latencyMs: 5000 } });
        const { jobId } = await enqueueExport(world.harness.producer.queue, exportJobData(FROM, TO, ['csv']));
        const underWay = fetching(events, jobId);
        const running = world.worker({ SHUTDOWN_GRACE_MS: '300' });
        await underWay;
        running.child.kill('SIGTERM');
        const exit = await running.exited;
        if (exit.code !== 0) throw new Error(`worker exited ${exit.code ?? exit.signal}`);
        const state = await (await world.harness.producer.queue.getJob(jobId))?.getState();
        if (state !== 'waiting') throw new Error(`job is ${state}, not handed back`);
        sandbox.clearFaults();
        world.worker();
        const outcome = await waitForJob(world.harness.producer.queue, events, jobId);
        if (outcome.state !== 'completed') throw new Error(`job failed: ${outcome.reason}`);
        const check = await checkLocalExport(world.dest, FROM, TO, expected);
        return {
          outcome: 'handed back unfailed, then completed by another worker',
          expected: expected.size,
          ...check,
        };
      }),
    ));

  it('exports a period once when two workers and two producers race for it', () =>
    scenario(GROUP, 'two workers race for one period', () =>
      withWorld('race', async (world) => {
        const events = await world.events();
        const a = world.worker();
        const b = world.worker();
        const queue = world.harness.producer.queue;
        const data = exportJobData(FROM, TO, ['csv']);
        const [first, second] = await Promise.all([enqueueExport(queue, data), enqueueExport(queue, data)]);
        if (first.jobId !== second.jobId) throw new Error('two jobs for one period');
        const outcome = await waitForJob(queue, events, first.jobId);
        if (outcome.state !== 'completed') throw new Error(`job failed: ${outcome.reason}`);
        const job = await queue.getJob(first.jobId);
        const published = publishedLines(a.stderr()) + publishedLines(b.stderr());
        if (published !== 1 || job?.attemptsStarted !== 1)
          throw new Error(`published ${published} times, ${job?.attemptsStarted} attempts`);
        const check = await checkLocalExport(world.dest, FROM, TO, expected);
        return { outcome: 'one job, one attempt, published once', expected: expected.size, ...check };
      }),
    ));
  it('keeps the schedules when SIGHUP finds a broken EXPORTS_FILE, and the scheduled run still exports', () => {
    const file = join(evidenceFolder('sighup-broken'), 'exports.yaml');
    const valid = [
      'exports:',
      '  - name: five-days',
      '    schedule: { cron: "0 4 * * *", tz: UTC }',
      '    period: last-5-days',
      '    formats: [csv]',
      '',
    ].join('\n');
    writeFileSync(file, valid);
    return scenario(GROUP, 'SIGHUP with a broken file', () =>
      withWorld(
        'sighup-broken',
        async (world) => {
          const { queue } = world.harness.producer;
          const worker = world.worker();
          await workerReady(worker);
          writeFileSync(file, valid.replace('period: last-5-days', 'period: last-fortnight'));
          worker.child.kill('SIGHUP');
          const deadline = Date.now() + 30_000;
          while (!worker.stderr().includes('export definitions not reloaded')) {
            if (Date.now() > deadline) throw new Error('no error line after SIGHUP');
            await new Promise((r) => setTimeout(r, 50));
          }
          const errors = worker
            .stderr()
            .split('\n')
            .filter((l) => l.includes('"level":50'));
          if (errors.length !== 1) throw new Error(`${errors.length} error lines, not 1`);
          const ids = (await queue.getJobSchedulers(0, -1)).map((s) => s.key);
          if (ids.join() !== 'export:five-days') throw new Error(`schedulers now: ${ids.join()}`);
          const events = await world.events();
          // The run of 2024-03-31 exports the 5 days ending yesterday: FROM..TO.
          await queue.add(
            JOB_NAMES.scheduledExport,
            { export: 'five-days' },
            { jobId: 'five-days-run', prevMillis: Date.parse('2024-03-31T04:00:00Z') },
          );
          const run = await waitForJob(queue, events, 'five-days-run');
          if (run.state !== 'completed') throw new Error(`scheduled run failed: ${run.reason}`);
          const [planned] = (run.returnValue as { exports: { job_id: string }[] }).exports;
          const outcome = await waitForJob(queue, events, planned?.job_id ?? '');
          if (outcome.state !== 'completed') throw new Error(`export failed: ${outcome.reason}`);
          const check = await checkLocalExport(join(world.dest, 'five-days'), FROM, TO, expected);
          return {
            outcome: 'schedules kept, one error line; the scheduled run exported',
            expected: expected.size,
            ...check,
          };
        },
        { EXPORTS_FILE: file },
      ),
    );
  });
});
