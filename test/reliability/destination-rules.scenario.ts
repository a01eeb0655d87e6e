// Destination rules: where the exporter may write and what it may remove, tried as an
// attacker with a token and as an unlucky operator. The dashboard's write routes over HTTP (the
// API as a child process, read-only by default); jobs that name a destination outside
// EXPORT_DEST — added through a writable Bull Board, edited there, or put straight into Redis, one
// through a symlink — refused by a `shift-export worker` child at once; POST /exports through such
// a symlink; and a real folder someone left at DEST/<from>_<to>, which neither `run` nor a worker
// may touch.

import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { JOB_NAMES } from '../../src/queue/queue-names.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startApiChild, type ApiChild } from './support/api-child.js';
import { runCliExport } from './support/cli-export.js';
import { evidenceFolder } from './support/evidence.js';
import { openQueueWorld, type QueueWorld } from './support/queue-world.js';
import { scenario } from './support/scenario.js';
import { sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'destination';
const API_TOKEN = 'api-token-destination-rules-5e6f7a8b';
const FROM = '2024-03-30';
const TO = '2024-03-30';
const KEY = `${FROM}_${TO}`;
const QUEUE_API = '/admin/queues/api/queues/shift-exports';

let redis: RedisServer;
let sandbox: RunningSandbox;
let world: QueueWorld;
let readOnlyApi: ApiChild;
let writableApi: ApiChild;
/** A folder the process can write to but no job may: outside EXPORT_DEST. */
let outside: string;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(sourceShape(2000))]);
  world = await openQueueWorld('destination-rules', redis.url, sandbox, { JOB_ATTEMPTS: '5' });
  outside = evidenceFolder('destination-rules-outside');
  const env = { ...world.harness.env, API_TOKENS: API_TOKEN };
  [readOnlyApi, writableApi] = await Promise.all([
    startApiChild('destination-rules-read-only', env),
    startApiChild('destination-rules-writable', { ...env, DASHBOARD_READ_ONLY: 'false' }),
  ]);
});

afterAll(async () => {
  await Promise.all([readOnlyApi?.stop(), writableApi?.stop()]);
  await world?.finish();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

async function call(
  api: ApiChild,
  method: string,
  path: string,
  body?: object,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${api.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the status says enough
  }
  return { status: r.status, json };
}

function entries(folder: string): string[] {
  return readdirSync(folder).sort();
}

describe('destination rules', () => {
  it('answers every write route of the dashboard with 4xx and changes nothing when it is read-only', () =>
    scenario(GROUP, 'dashboard read-only: Bull Board write routes over HTTP', async () => {
      const queue = world.harness.producer.queue;
      const data = exportJobData(FROM, TO, ['csv']);
      await queue.add(JOB_NAMES.exportPeriod, data, { jobId: 'dashboard-target', delay: 3_600_000 });
      const hostile = { ...data, dest: outside };
      const writes: [string, string, object?][] = [
        ['POST', `${QUEUE_API}/add`, { name: JOB_NAMES.exportPeriod, data: hostile }],
        ['PATCH', `${QUEUE_API}/dashboard-target/update-data`, { jobData: hostile }],
        ['PATCH', `${QUEUE_API}/dashboard-target/delay`, { delay: 0 }],
        ['PATCH', `${QUEUE_API}/dashboard-target/priority`, { priority: 1 }],
        ['PUT', `${QUEUE_API}/dashboard-target/retry`],
        ['PUT', `${QUEUE_API}/dashboard-target/promote`],
        ['PUT', `${QUEUE_API}/dashboard-target/clean`],
        ['PUT', `${QUEUE_API}/retry/failed`],
        ['PUT', `${QUEUE_API}/promote`],
        ['PUT', `${QUEUE_API}/clean/delayed`],
        ['PUT', `${QUEUE_API}/pause`],
        ['PUT', `${QUEUE_API}/resume`],
        ['PUT', `${QUEUE_API}/empty`],
        ['PUT', `${QUEUE_API}/obliterate`, { force: true }],
        ['PUT', '/admin/queues/api/queues/pause'],
        ['PUT', '/admin/queues/api/queues/resume'],
      ];
      const wrong: string[] = [];
      const statuses = new Set<number>();
      for (const [method, path, body] of writes) {
        const { status } = await call(readOnlyApi, method, path, body);
        statuses.add(status);
        if (status < 400 || status >= 500) wrong.push(`${method} ${path.replace(QUEUE_API, '…')}: ${status}`);
      }
      const job = await queue.getJob('dashboard-target');
      if (JSON.stringify(job?.data) !== JSON.stringify(data)) wrong.push('the job data changed');
      if ((await job?.getState()) !== 'delayed') wrong.push('the job left the delayed state');
      if ((await queue.count()) !== 1) wrong.push('the queue gained or lost jobs');
      if (await queue.isPaused()) wrong.push('the queue was paused');
      if ((await call(readOnlyApi, 'GET', `${QUEUE_API}/dashboard-target`)).status !== 200)
        wrong.push('reading a job was refused');
      await job?.remove();
      if (wrong.length > 0) throw new Error(wrong.join('; '));
      return {
        outcome: `${writes.length}/${writes.length} write routes refused (${[...statuses].join(', ')}), queue unchanged, reads still served`,
      };
    }));

  it('fails at once, writing nothing, every job whose dest is outside the roots, however it got into Redis', () =>
    scenario(
      GROUP,
      'jobs with a dest outside EXPORT_DEST (writable Bull Board, Redis, symlink)',
      async () => {
        const queue = world.harness.producer.queue;
        const hostile = { ...exportJobData(FROM, TO, ['csv']), dest: outside };
        const jobIds: string[] = [];
        // 1. Added through a dashboard whose write actions were switched on.
        const added = await call(writableApi, 'POST', `${QUEUE_API}/add`, {
          name: JOB_NAMES.exportPeriod,
          data: hostile,
        });
        const addedId = (added.json['job'] as { id?: unknown } | undefined)?.id;
        if (added.status !== 200 || typeof addedId !== 'string')
          throw new Error(`the writable dashboard did not add the job: ${added.status}`);
        jobIds.push(addedId);
        // 2. A harmless job edited there to point elsewhere, then promoted.
        await queue.add(JOB_NAMES.exportPeriod, exportJobData(FROM, TO, ['csv']), {
          jobId: 'edited-in-dashboard',
          delay: 3_600_000,
        });
        for (const [method, path, body] of [
          ['PATCH', `${QUEUE_API}/edited-in-dashboard/update-data`, { jobData: hostile }],
          ['PUT', `${QUEUE_API}/edited-in-dashboard/promote`, undefined],
        ] as const) {
          const r = await call(writableApi, method, path, body);
          if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status}`);
        }
        jobIds.push('edited-in-dashboard');
        // 3. Straight into Redis, through a symlink inside EXPORT_DEST that leads out of it.
        symlinkSync(outside, join(world.dest, 'escape'));
        await queue.add(
          JOB_NAMES.exportPeriod,
          { ...exportJobData(FROM, TO, ['csv']), dest: join(world.dest, 'escape', 'team') },
          { jobId: 'straight-into-redis' },
        );
        jobIds.push('straight-into-redis');

        world.worker();
        const events = await world.events();
        const wrong: string[] = [];
        for (const jobId of jobIds) {
          const outcome = await waitForJob(queue, events, jobId);
          const attempts = (await queue.getJob(jobId))?.attemptsMade;
          if (outcome.state !== 'failed' || !outcome.reason.startsWith('DEST_NOT_ALLOWED: '))
            wrong.push(`${jobId}: ${outcome.state === 'failed' ? outcome.reason : 'completed'}`);
          else if (attempts !== 1) wrong.push(`${jobId}: ${attempts} attempts (JOB_ATTEMPTS=5)`);
          else if (outcome.reason.includes('\n')) wrong.push(`${jobId}: reason on several lines`);
        }
        if (entries(outside).length > 0) wrong.push(`written outside: ${entries(outside).join(', ')}`);
        if (entries(world.dest).join() !== 'escape')
          wrong.push(`EXPORT_DEST holds ${entries(world.dest).join(', ')}`);
        if (wrong.length > 0) throw new Error(wrong.join('; '));
        return {
          outcome: `${jobIds.length}/${jobIds.length} jobs failed at once (1 of 5 attempts): DEST_NOT_ALLOWED; nothing written outside`,
        };
      },
    ));

  it('refuses POST /exports with a dest that is a symlink out of EXPORT_DEST', () =>
    scenario(GROUP, 'POST /exports dest through a symlink out of EXPORT_DEST', async () => {
      const queue = world.harness.producer.queue;
      const before = await queue.count();
      const dests = [join(world.dest, 'escape'), join(world.dest, 'escape', 'team')];
      const wrong: string[] = [];
      for (const dest of dests) {
        const r = await call(readOnlyApi, 'POST', '/exports', { from: FROM, to: TO, dest });
        if (r.status !== 400 || r.json['error'] !== 'invalid_body') wrong.push(`${dest}: ${r.status}`);
      }
      if ((await queue.count()) !== before) wrong.push('a job was queued');
      if (entries(outside).length > 0) wrong.push('something was written outside');
      if (wrong.length > 0) throw new Error(wrong.join('; '));
      return { outcome: `${dests.length}/${dests.length} refused with 400, no job queued, nothing written` };
    }));

  it('leaves a folder it did not create at DEST/<from>_<to> untouched, from the CLI and from a worker', () =>
    scenario(GROUP, 'foreign folder at DEST/<from>_<to>', async () => {
      const plant = (dest: string): void => {
        mkdirSync(join(dest, KEY), { recursive: true });
        writeFileSync(join(dest, KEY, 'notes.txt'), 'my notes, not an export');
      };
      const intact = (dest: string, what: string): string[] => {
        const problems: string[] = [];
        if (entries(dest).join() !== KEY) problems.push(`${what}: ${entries(dest).join(', ')} in the folder`);
        if (entries(join(dest, KEY)).join() !== 'notes.txt') problems.push(`${what}: the folder changed`);
        else if (readFileSync(join(dest, KEY, 'notes.txt'), 'utf8') !== 'my notes, not an export')
          problems.push(`${what}: the file changed`);
        return problems;
      };
      const wrong: string[] = [];

      const cliDest = evidenceFolder('destination-rules-foreign');
      plant(cliDest);
      const cli = await runCliExport('destination-rules-foreign', {
        baseUrl: sandbox.url,
        from: FROM,
        to: TO,
        dest: cliDest,
      });
      const lines = cli.run.stderr.trim().split('\n');
      if (cli.run.code !== 1 || cli.errorCode !== 'DEST_NOT_OURS')
        wrong.push(`run: exit ${cli.run.code}, ${lines.at(-1)}`);
      else if (!/move it away or choose another EXPORT_DEST/.test(lines.at(-1) ?? ''))
        wrong.push(`run: the line does not say what to do: ${lines.at(-1)}`);
      wrong.push(...intact(cliDest, 'run'));

      const team = join(world.dest, 'team');
      plant(team);
      const queue = world.harness.producer.queue;
      const { jobId } = await enqueueExport(queue, exportJobData(FROM, TO, ['csv'], team));
      const outcome = await waitForJob(queue, await world.events(), jobId);
      const attempts = (await queue.getJob(jobId))?.attemptsMade;
      if (outcome.state !== 'failed' || !outcome.reason.startsWith('DEST_NOT_OURS: ') || attempts !== 1)
        wrong.push(
          `worker: ${outcome.state === 'failed' ? outcome.reason : 'completed'}, ${attempts} attempts`,
        );
      wrong.push(...intact(team, 'worker'));
      if (wrong.length > 0) throw new Error(wrong.join('; '));
      return {
        outcome:
          'run exit 1 and the job failed at once (1 attempt): DEST_NOT_OURS, one line; folder and file untouched, no .partial',
      };
    }));
});
