// The queue `shift-exports` as producers open it: under QUEUE_PREFIX (a Redis Cluster hash tag, so
// all its keys land on one slot), with the default options every job gets — attempts and the
// jittered backoff from config, and how long finished jobs are kept (they are the memory behind
// "already exported" and behind `status`).

import { FlowProducer, Queue, type DefaultJobOptions } from 'bullmq';
import type { RedisClient } from './redis-connection.js';
import type { QueueConfig } from '../config/queue-config.js';
import { EXPORT_QUEUE_NAME } from './queue-names.js';
import { jobBackoff } from './retry-backoff.js';

/** Finished jobs are kept this long (seconds) and at most this many of each kind. */
export const KEEP_FINISHED = { age: 30 * 24 * 3600, count: 10_000 } as const;

export type QueueSettings = Pick<QueueConfig, 'prefix' | 'attempts' | 'backoffMs'>;

export function defaultJobOptions(settings: Pick<QueueConfig, 'attempts' | 'backoffMs'>): DefaultJobOptions {
  return {
    attempts: settings.attempts,
    backoff: jobBackoff(settings.backoffMs),
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
  };
}

export function openExportQueue(connection: RedisClient, settings: QueueSettings): Queue {
  return new Queue(EXPORT_QUEUE_NAME, {
    connection,
    prefix: settings.prefix,
    defaultJobOptions: defaultJobOptions(settings),
  });
}

export function openFlowProducer(
  connection: RedisClient,
  settings: Pick<QueueConfig, 'prefix'>,
): FlowProducer {
  return new FlowProducer({ connection, prefix: settings.prefix });
}
