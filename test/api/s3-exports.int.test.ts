// Exports to S3 through the queue (an S3-compatible server in this process): the change count of a
// re-export read back from S3, a download answered with a redirect to a short-lived presigned URL
// that serves the published bytes, and a backfill index stored as an object beside the exports.

import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { enqueueBackfill, enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { startHarnessApi, type HarnessApi } from './support/harness-api.js';

const DAY = '2024-03-29';
const TOKEN = 'api-token-for-s3-tests';

let redis: RedisServer;
let sandbox: RunningSandbox;
let s3: TestS3Server;
let harness: Harness;
let api: HarnessApi;
let base: string;
let dest: string;

beforeAll(async () => {
  [redis, sandbox, s3] = await Promise.all([
    startRedisServer(),
    startTestSandbox({ rows: 400 }),
    startTestS3Server(),
  ]);
  // The S3 client takes credentials from the AWS default chain, i.e. this process's environment.
  process.env['AWS_ACCESS_KEY_ID'] = s3.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = s3.secretAccessKey;
  const bucket = await s3.createBucket();
  dest = `s3://${bucket}/shift-exports`;
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: { EXPORT_DEST: dest, S3_ENDPOINT: s3.endpoint, S3_FORCE_PATH_STYLE: 'true', S3_PART_SIZE_MB: '5' },
  });
  await harness.startWorker();
  api = await startHarnessApi(harness, { tokens: [TOKEN], bodyLimitBytes: 4096 });
  base = api.base;
});

afterAll(async () => {
  await api?.close();
  await harness?.stop();
  await s3?.cleanup();
  await Promise.all([redis?.stop(), sandbox?.close(), s3?.stop()]);
});

async function exported(force = false): Promise<ExportJobResult> {
  const { jobId } = await enqueueExport(harness.producer.queue, exportJobData(DAY, DAY, ['csv']), { force });
  const outcome = await waitForJob(harness.producer.queue, await harness.events(), jobId);
  if (outcome.state !== 'completed') throw new Error(outcome.reason);
  const result = readExportJobResult(outcome.returnValue);
  if (result === undefined) throw new Error('not an export result');
  return result;
}

describe('exports to S3', () => {
  let first: ExportJobResult;

  it('publishes to the bucket, and a re-export counts its changes from the row hashes stored there', async () => {
    first = await exported();
    expect(first.location.startsWith(`${dest}/${DAY}_${DAY}`)).toBe(true);
    expect(first.manifest_location).toMatch(new RegExp(`^${dest}/${DAY}_${DAY}/manifest\\.json$`));
    const second = await exported(true);
    expect(second.changes).toEqual({ previous_export_id: first.export_id, added: 0, removed: 0, changed: 0 });
  });

  it('redirects a download to a short-lived presigned URL that serves the published file', async () => {
    const { jobId } = await enqueueExport(harness.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const view = (await (
      await fetch(`${base}/exports/${jobId}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as {
      result: ExportJobResult;
    };
    const response = await fetch(`${base}/exports/${jobId}/files/shifts.csv`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      redirect: 'manual',
    });
    expect(response.status).toBe(302);
    const location = response.headers.get('location') ?? '';
    expect(location.startsWith(`${s3.endpoint}/`)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('300');
    const file = Buffer.from(await (await fetch(location)).arrayBuffer());
    const entry = view.result.files.find((f) => f.name === 'shifts.csv');
    expect(createHash('sha256').update(file).digest('hex')).toBe(entry?.sha256);
  });

  it('stores a backfill index as an object beside the exports', async () => {
    const outcome = await enqueueBackfill(
      harness.producer.queue,
      harness.producer.flows(),
      exportJobData('2024-03-27', '2024-03-28', ['csv']),
      harness.queueConfig,
    );
    const done = await waitForJob(harness.producer.queue, await harness.events(), outcome.jobId);
    if (done.state !== 'completed') throw new Error(done.reason);
    const key = 'shift-exports/backfill-2024-03-27_2024-03-28.json';
    expect((done.returnValue as { index_location: string }).index_location).toBe(
      `${dest.replace(/\/shift-exports$/, '')}/${key}`,
    );
    const object = await s3
      .client()
      .send(new GetObjectCommand({ Bucket: dest.slice(5).split('/')[0], Key: key }));
    const index = JSON.parse(await (object.Body?.transformToString() ?? Promise.resolve('{}'))) as {
      days: { date: string }[];
    };
    expect(index.days.map((d) => d.date)).toEqual(['2024-03-27', '2024-03-28']);
  });
});
