// Waiting for a job against a real redis-server, with no worker: a job that vanishes from Redis
// while we wait (what a failover to a replica that missed the newest writes does) ends the wait
// with JOB_LOST instead of waiting for an event that never comes; a job that is still there keeps
// the wait going. A job that finishes while its events are not heard (an events connection stuck
// after a failover) ends the wait all the same, with its outcome. Events written from the moment
// the events are opened are never missed, even before their connection has started reading (a job
// that completes in that window).

import { once } from 'node:events';
import { QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { EXPORT_QUEUE_NAME } from '../../src/queue/queue-names.js';
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
    let lookups = 0;
    const getJobState = queue.getJobState.bind(queue);
    queue.getJobState = (id: string) => {
      lookups++;
      return getJobState(id);
    };
    const waiting = waitForJob(queue, await harness.events(), jobId, undefined, 50);
    // Still there: the wait goes on through several look-ups.
    while (lookups < 4) await new Promise((resolve) => setImmediate(resolve));
    await (await queue.getJob(jobId))!.remove();

    const error = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JobLostError);
    expect(error).toMatchObject({ code: 'JOB_LOST', retryable: true });
    expect((error as Error).message).toContain(jobId);
  });

  describe('when the job finishes and its event is never heard', () => {
    /** Events on a connection that is up but reads nothing: what a stuck events connection hears. */
    const deafEvents = (h: Harness): QueueEvents =>
      new QueueEvents(EXPORT_QUEUE_NAME, {
        connection: { url: redis.url },
        prefix: h.prefix,
        autorun: false,
      });

    /** Takes the next job as a worker would and finishes it with `finish`. */
    async function finishNextJob(
      h: Harness,
      finish: (job: Job, token: string) => Promise<unknown>,
    ): Promise<void> {
      const taker = new Worker(EXPORT_QUEUE_NAME, null, {
        connection: { url: redis.url },
        prefix: h.prefix,
        autorun: false,
      });
      try {
        const taken = await taker.getNextJob('test-token');
        if (taken === undefined) throw new Error('no job to take');
        await finish(taken, 'test-token');
      } finally {
        await taker.close();
      }
    }

    /** What waitForJob resolves with when a job is finished by `finish` while its events say nothing. */
    async function outcomeHeardByLookUp(finish: Parameters<typeof finishNextJob>[1]): Promise<unknown> {
      harness = await startHarness({ redisUrl: redis.url, sandboxUrl: 'http://127.0.0.1:1' });
      const { queue } = harness.producer;
      const { jobId } = await enqueueExport(queue, exportJobData('2024-03-30', '2024-03-30', ['csv']));
      const events = deafEvents(harness);
      try {
        await events.waitUntilReady();
        const waiting = waitForJob(queue, events, jobId, undefined, 50);
        await finishNextJob(harness, finish);
        return await waiting;
      } finally {
        await events.close();
      }
    }

    it('resolves with the return value once a look-up finds the job completed', async () => {
      const outcome = await outcomeHeardByLookUp((job, token) =>
        job.moveToCompleted({ marker: 42 }, token, false),
      );
      expect(outcome).toEqual({ state: 'completed', returnValue: { marker: 42 } });
    });

    it('resolves with the failure reason once a look-up finds the job failed', async () => {
      const outcome = await outcomeHeardByLookUp((job, token) =>
        job.moveToFailed(new UnrecoverableError('WFM_AUTH: the token was refused'), token, false),
      );
      expect(outcome).toEqual({ state: 'failed', reason: 'WFM_AUTH: the token was refused' });
    });
  });

  it('hears every event written once the events are open, before their first read too', async () => {
    harness = await startHarness({ redisUrl: redis.url, sandboxUrl: 'http://127.0.0.1:1' });
    const { queue } = harness.producer;
    const { jobId } = await enqueueExport(queue, exportJobData('2024-03-30', '2024-03-30', ['csv']));
    const events = await harness.events();
    const heard = once(events, `completed:${jobId}`);
    // What a worker writes when the job completes, at once: the events connection may not have
    // sent its first blocking read yet. A waiter that found the job unfinished a moment before
    // hears of it only through this event.
    await harness.producer.connection.xadd(
      queue.keys['events']!,
      '*',
      'event',
      'completed',
      'jobId',
      jobId,
      'returnvalue',
      JSON.stringify({ marker: 42 }),
    );

    const [completed] = (await heard) as [{ returnvalue: unknown }];
    expect(completed.returnvalue).toEqual({ marker: 42 });
  });
});
