// `enqueue --wait` when Redis goes away right after the job id was printed, while the wait is still
// opening its events: the command must end with REDIS_UNAVAILABLE once the outage has lasted its
// limit, print no result, and leave no connection behind (a connection BullMQ can no longer close
// keeps the process from exiting). A proxy in front of a real redis-server cuts every connection
// once the events' first read of the stream (XREVRANGE) was answered, and answers nothing after.

import { PassThrough } from 'node:stream';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitAndReport } from '../../src/cli/wait-and-report.js';
import { loadQueueConfig } from '../../src/config/queue-config.js';
import { loadQueueTuning } from '../../src/config/queue-tuning.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { openProducer } from '../../src/queue/producer.js';
import { EXPORT_QUEUE_NAME } from '../../src/queue/queue-names.js';
import { startRedisCutProxy } from '../support/redis-cut-proxy.js';
import { removeKeys, startRedisServer, testPrefix, type RedisServer } from '../support/redis-server.js';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

describe('waitAndReport', () => {
  it('ends with REDIS_UNAVAILABLE when Redis goes away while the events are opened', async () => {
    const prefix = testPrefix();
    // The job, queued straight on Redis: only the wait goes through the proxy.
    const queue = new Queue(EXPORT_QUEUE_NAME, { connection: { url: redis.url }, prefix });
    const { jobId } = await enqueueExport(queue, exportJobData('2024-03-30', '2024-03-30', ['csv']));
    await queue.close();

    const proxy = await startRedisCutProxy(redis.url, 'xrevrange');
    const env = { REDIS_URL: proxy.url, QUEUE_PREFIX: prefix, REDIS_CONNECT_TIMEOUT_MS: '2000' };
    const producer = await openProducer({ config: loadQueueConfig(env), tuning: loadQueueTuning(env) });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let printed = '';
    stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    try {
      const waiting = waitAndReport(producer, jobId, { stdout, stderr, env }, undefined, 500);
      await proxy.cut;
      await expect(waiting).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
      expect(printed).toBe('');
    } finally {
      // Every connection it opened, BullMQ's events connection too, is released here: the leak
      // guard fails the test otherwise.
      await producer.close();
      await proxy.close();
      await removeKeys(redis.url, prefix);
    }
  });
});
