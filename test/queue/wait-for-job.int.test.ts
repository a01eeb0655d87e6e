// Waiting for a job against a real redis-server, with no worker: a job that vanishes from Redis
// while we wait (what a failover to a replica that missed the newest writes does) ends the wait
// with JOB_LOST instead of waiting for an event that never comes; a job that is still there keeps
// the wait going.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { JobLostError, waitForJob } from '../../src/queue/wait-for-job.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startHarness, type Harness } from './support/queue-harness.js';

let redis: RedisServer;
let harness: Harness | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('waitForJob', () => {
  it('rejects with JOB_LOST once the job it waits for is gone from Redis', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: 'http://127.0.0.1:1' });
    const { queue } = harness.producer;
    const { jobId } = await enqueueExport(queue, exportJobData('2024-03-30', '2024-03-30', ['csv']));
    let presenceChecks = 0;
    const getJob = queue.getJob.bind(queue);
    queue.getJob = (id: string) => {
      presenceChecks++;
      return getJob(id);
    };
    const waiting = waitForJob(queue, await harness.events(), jobId, undefined, 50);
    // Still there: the wait goes on through several checks.
    while (presenceChecks < 4) await new Promise((resolve) => setImmediate(resolve));
    await (await getJob(jobId))!.remove();

    const error = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JobLostError);
    expect(error).toMatchObject({ code: 'JOB_LOST', retryable: true });
    expect((error as Error).message).toContain(jobId);
  });
});
