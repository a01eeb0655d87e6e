// The worker in this process against a real redis-server and the sandbox over HTTP: an export job
// from queue to published files, idempotent enqueueing and --force, changes since the previous
// export, retries of transient failures, immediate failure of terminal ones.

import { readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest, renderManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { exportRunOf } from '../../src/queue/export-run.js';
import { readExportMetrics } from '../../src/queue/export-metrics.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { JOB_NAMES } from '../../src/queue/queue-names.js';
import { waitForJob, type JobOutcome } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness, type HarnessOptions } from './support/queue-harness.js';
import { tempFolderForTest } from '../support/temp-folder.js';

const DAY = '2024-03-30';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

afterEach(async () => {
  sandbox.clearFaults();
  await harness?.stop();
  harness = undefined;
});

async function open(options: Partial<HarnessOptions> = {}): Promise<Harness> {
  harness = await startHarness({ redisUrl: redis.url, sandboxUrl: sandbox.url, ...options });
  return harness;
}

async function finish(h: Harness, jobId: string, progress: unknown[] = []): Promise<JobOutcome> {
  return waitForJob(h.producer.queue, await h.events(), jobId, (p) => progress.push(p));
}

function result(outcome: JobOutcome): ExportJobResult {
  if (outcome.state !== 'completed') throw new Error(`the job failed: ${outcome.reason}`);
  const r = readExportJobResult(outcome.returnValue);
  if (r === undefined) throw new Error(`not an export result: ${JSON.stringify(outcome)}`);
  return r;
}

describe('export job', () => {
  it('exports the period, reports progress and returns the summary of the published manifest', async () => {
    const h = await open();
    await h.startWorker();
    const { jobId, created } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    expect(created).toBe(true);
    const progress: unknown[] = [];
    const r = result(await finish(h, jobId, progress));

    const folder = realpathSync(join(h.dest, `${DAY}_${DAY}`));
    const manifest = parseManifest(readFileSync(join(folder, 'manifest.json'), 'utf8'));
    expect(r.export_id).toBe(manifest.export_id);
    expect(r.counts).toEqual(manifest.counts);
    expect(r.counts.exported).toBeGreaterThan(10);
    expect(r.files.map((f) => f.name)).toEqual(manifest.files.map((f) => f.name));
    expect(r.files.map((f) => f.name)).toContain('row-hashes.bin');
    expect(r.location).toBe(join(h.dest, `${DAY}_${DAY}`));
    // The first export of the period has nothing to compare with.
    expect(r.changes).toBeUndefined();
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ phase: expect.any(String), rows: expect.any(Number) });
  });

  it('returns the waiting job for the same export, and re-runs a completed one only when forced', async () => {
    const h = await open();
    const data = exportJobData(DAY, DAY, ['csv']);
    const first = await enqueueExport(h.producer.queue, data);
    const again = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    expect(again).toEqual({ jobId: first.jobId, created: false, state: 'waiting' });
    expect(await h.producer.queue.getJobCountByTypes('waiting')).toBe(1);

    await h.startWorker();
    const r1 = result(await finish(h, first.jobId));
    expect(await enqueueExport(h.producer.queue, data)).toEqual({
      jobId: first.jobId,
      created: false,
      state: 'completed',
    });

    const jobOf = async (): Promise<Job> => {
      const job = await h.producer.queue.getJob(first.jobId);
      if (job === undefined) throw new Error(`no job ${first.jobId}`);
      return job;
    };
    const run1 = exportRunOf(await jobOf());
    const forced = await enqueueExport(h.producer.queue, data, { force: true });
    expect(forced).toMatchObject({ jobId: first.jobId, created: true });
    // The same job, queued again: a run of its own (its e-mail is sent again).
    expect(exportRunOf(await jobOf())).not.toBe(run1);
    const r2 = result(await finish(h, first.jobId));
    expect(r2.export_id).not.toBe(r1.export_id);
    // Same upstream data: the re-export finds every row as it was.
    expect(r2.changes).toEqual({ previous_export_id: r1.export_id, added: 0, removed: 0, changed: 0 });
    expect(r2.previous).toEqual({ export_id: r1.export_id, generated_at: r1.generated_at });
  });

  it('counts the rows that appeared since the previous export of the day', async () => {
    const h = await open();
    await h.startWorker();
    const data = exportJobData(DAY, DAY, ['csv']);
    // Rows the upstream sent broken the first time are rejected; the re-export gets them right.
    sandbox.setFaults({ wfm_timers: { invalidRowRate: 0.3 } });
    const r1 = result(await finish(h, (await enqueueExport(h.producer.queue, data)).jobId));
    sandbox.clearFaults();
    const r2 = result(await finish(h, (await enqueueExport(h.producer.queue, data, { force: true })).jobId));
    expect(r1.counts.rejected).toBeGreaterThan(0);
    expect(r2.counts.exported).toBeGreaterThan(r1.counts.exported);
    expect(r2.changes).toMatchObject({ previous_export_id: r1.export_id, removed: 0, changed: 0 });
    expect(r2.changes?.added).toBe(r2.counts.exported - r1.counts.exported);
  });

  it('records row hashes for an xlsx-only export, so the next export counts its changes against it', async () => {
    const h = await open();
    await h.startWorker();
    const r1 = result(
      await finish(h, (await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['xlsx']))).jobId),
    );
    expect(r1.files.map((f) => f.name)).toEqual(['shifts.xlsx', 'row-hashes.bin']);
    const r2 = result(
      await finish(h, (await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']))).jobId),
    );
    expect(r2.previous).toEqual({ export_id: r1.export_id, generated_at: r1.generated_at });
    expect(r2.changes).toEqual({ previous_export_id: r1.export_id, added: 0, removed: 0, changed: 0 });
  });

  it('records the replaced export, and says in its result that changes are not counted when that export kept no row hashes', async () => {
    const h = await open();
    await h.startWorker();
    const data = exportJobData(DAY, DAY, ['csv']);
    const r1 = result(await finish(h, (await enqueueExport(h.producer.queue, data)).jobId));
    // As an export whose temp folder was full left it: published without row-hashes.bin.
    const manifestPath = join(realpathSync(join(h.dest, `${DAY}_${DAY}`)), 'manifest.json');
    const m1 = parseManifest(readFileSync(manifestPath, 'utf8'));
    const files = m1.files.filter((f) => f.name !== 'row-hashes.bin');
    writeFileSync(manifestPath, renderManifest({ ...m1, files }));
    const r2 = result(await finish(h, (await enqueueExport(h.producer.queue, data, { force: true })).jobId));
    expect(r2.previous).toEqual({ export_id: r1.export_id, generated_at: r1.generated_at });
    expect(r2.changes).toBeNull();
    expect(r2.changes_unavailable).toEqual({
      reason: 'previous_row_hashes_missing',
      message: expect.stringContaining(`${r1.export_id} has no row-hashes.bin`) as string,
    });
    expect(h.logs.find((l) => l.reason === 'previous_row_hashes_missing')).toMatchObject({ level: 40 });
  });

  it('retries a transient upstream failure and then succeeds', async () => {
    const h = await open({ env: { JOB_ATTEMPTS: '3' } });
    sandbox.setFaults({ wfm_timers: { failNext: 1, errorStatus: 503 } });
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    result(await finish(h, jobId));
    const job = await h.producer.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(2);
    const failures = h.logs.filter((l) => l.msg === 'job attempt failed');
    expect(failures).toHaveLength(1);
    expect(String(failures[0]?.['reason'])).toMatch(/^WFM_/);
  });

  it('adds upstream retries and the completed export to the shared metrics', async () => {
    const h = await open({ env: { WFM_RETRY_ATTEMPTS: '3' } });
    sandbox.setFaults({ wfm_timers: { failNext: 2, errorStatus: 503 } });
    await h.startWorker();
    const r = result(
      await finish(h, (await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']))).jobId),
    );
    const metrics = await readExportMetrics(h.producer.connection, h.prefix);
    expect(metrics.counters).toMatchObject({
      exports_completed: 1,
      exports_failed: 0,
      upstream_retries: 2,
      rows_exported: r.counts.exported,
    });
    expect(metrics.duration.count).toBe(1);
  });

  it('counts the bytes on the wire (gzip) and decoded in the metrics and the published log line', async () => {
    const h = await open();
    await h.startWorker();
    result(await finish(h, (await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']))).jobId));
    const { counters } = await readExportMetrics(h.producer.connection, h.prefix);
    expect(counters.upstream_wire_bytes).toBeGreaterThan(0);
    expect(counters.upstream_wire_bytes).toBeLessThan(counters.upstream_decoded_bytes / 3);
    const published = h.logs.find((l) => l.msg === 'export published');
    const upstream = published?.['upstream'] as { wireBytes: number; decodedBytes: number } | undefined;
    expect(upstream?.wireBytes).toBeGreaterThan(0);
    expect(upstream?.wireBytes).toBeLessThan((upstream?.decodedBytes ?? 0) / 3);
  });

  it('fails at once on 401 with a one-line reason, without using its other attempts', async () => {
    const h = await open({ wfmToken: 'not-a-token', env: { JOB_ATTEMPTS: '5' } });
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await finish(h, jobId);
    expect(outcome.state).toBe('failed');
    const job = await h.producer.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/^WFM_AUTH: /);
    expect(job?.failedReason).not.toContain('\n');
    expect(job?.failedReason).not.toContain('not-a-token');
  });

  it('refuses at once a job put straight into Redis with a dest outside EXPORT_DEST, and writes nothing there', async () => {
    const h = await open({ env: { JOB_ATTEMPTS: '5' } });
    const outside = tempFolderForTest('outside-');
    // A symlink inside EXPORT_DEST that leads out of it is outside too.
    symlinkSync(outside, join(h.dest, 'escape'));
    await h.startWorker();
    for (const [jobId, dest] of [
      ['hostile-dest', outside],
      ['hostile-link', join(h.dest, 'escape', 'sub')],
    ] as const) {
      await h.producer.queue.add(
        JOB_NAMES.exportPeriod,
        { from: DAY, to: DAY, formats: ['csv'], dest },
        { jobId },
      );
      const outcome = await finish(h, jobId);
      expect(outcome).toEqual({
        state: 'failed',
        reason: expect.stringMatching(
          /^DEST_NOT_ALLOWED: destination ".*" is not allowed: .*outside EXPORT_DEST/,
        ),
      });
      expect((await h.producer.queue.getJob(jobId))?.attemptsMade).toBe(1);
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(h.dest)).toEqual(['escape']);
  });

  it('exports to a folder of EXPORT_DEST_ALLOW', async () => {
    const other = tempFolderForTest('allowed-');
    const h = await open({ env: { EXPORT_DEST_ALLOW: other } });
    await h.startWorker();
    const { jobId } = await enqueueExport(
      h.producer.queue,
      exportJobData(DAY, DAY, ['csv'], join(other, 'team')),
    );
    expect(result(await finish(h, jobId)).location).toBe(join(other, 'team', `${DAY}_${DAY}`));
  });

  it('fails a job whose data is invalid at once, naming the field', async () => {
    const h = await open();
    await h.startWorker();
    const job = await h.producer.queue.add(
      JOB_NAMES.exportPeriod,
      { from: '2024-03-30', to: '2024-02-30', formats: ['csv'] },
      { jobId: 'bad-data' },
    );
    const outcome = await finish(h, job.id ?? '');
    expect(outcome).toEqual({
      state: 'failed',
      reason: expect.stringMatching(/^REQUEST_INVALID: the export job data is invalid at to/),
    });
    expect((await h.producer.queue.getJob('bad-data'))?.attemptsMade).toBe(1);
  });
});
