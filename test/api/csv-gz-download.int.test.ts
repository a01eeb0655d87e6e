// A `.csv.gz` of a local export downloaded through the control API: served as S3 serves it, text/csv
// with Content-Encoding gzip, so an HTTP client that decodes (fetch here) gets the CSV text.

import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { startHarnessApi, type HarnessApi } from './support/harness-api.js';

const DAY = '2024-03-30';
const TOKEN = 'api-token-for-csv-gz-tests';

let redis: RedisServer;
let sandbox: RunningSandbox;
let harness: Harness;
let api: HarnessApi;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox({ rows: 400 })]);
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: { CSV_COMPRESSION: 'gzip' },
  });
  await harness.startWorker();
  api = await startHarnessApi(harness, { tokens: [TOKEN], bodyLimitBytes: 1024 });
});

afterAll(async () => {
  await api?.close();
  await harness?.stop();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

describe('GET /exports/:id/files/shifts.csv.gz', () => {
  it('serves the stored gzip bytes as text/csv with Content-Encoding gzip', async () => {
    const { jobId } = await enqueueExport(harness.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(harness.producer.queue, await harness.events(), jobId);
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    const stored = readFileSync(join(realpathSync(join(harness.dest, `${DAY}_${DAY}`)), 'shifts.csv.gz'));
    const url = `${api.base}/exports/${jobId}/files/shifts.csv.gz`;
    const headers = { authorization: `Bearer ${TOKEN}` };

    const decoded = await fetch(url, { headers });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(decoded.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await decoded.arrayBuffer()).equals(gunzipSync(stored))).toBe(true);
    // Only the compressed file exists: the plain name is not an alias for it.
    const plain = await fetch(`${api.base}/exports/${jobId}/files/shifts.csv`, { headers });
    expect(plain.status).toBe(404);
  });
});
