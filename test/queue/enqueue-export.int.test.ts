// enqueueExport against a real redis-server: a burst of requests for many periods, each asked
// several times (what the control API gets), adds one job per period and reports exactly one
// request per period as created. Regression: adds landing in the same millisecond got equal job
// timestamps, so duplicates of a period were also reported as created (the API answered 202).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startHarness, type Harness } from './support/queue-harness.js';

const PERIODS = 25;
const ASKS = 8;

let redis: RedisServer;
let harness: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
  harness = await startHarness({ redisUrl: redis.url, sandboxUrl: 'http://127.0.0.1:9' });
});

afterAll(async () => {
  await harness?.stop();
  await redis?.stop();
});

describe('enqueueExport', () => {
  it('reports one created request per period in a burst of interleaved duplicates', async () => {
    const days = Array.from({ length: PERIODS }, (_, i) => `2024-03-${String(i + 1).padStart(2, '0')}`);
    const results = await Promise.all(
      Array.from({ length: PERIODS * ASKS }, (_, i) => {
        const day = days[i % PERIODS] ?? '2024-03-01';
        return enqueueExport(harness.producer.queue, exportJobData(day, day, ['csv']));
      }),
    );
    expect(new Set(results.map((r) => r.jobId)).size).toBe(PERIODS);
    expect(results.filter((r) => r.created)).toHaveLength(PERIODS);
    expect(await harness.producer.queue.count()).toBe(PERIODS);
  });
});
