// What the one-shot commands (`enqueue`, `status`, `backfill`) and the API open to talk to the
// queue: a producer connection (fails fast when Redis is down), the queue with its default job
// options, a FlowProducer on demand, and a close() that releases all of it.

import { QueueEvents, type FlowProducer, type Queue } from 'bullmq';
import type { RedisClient } from './redis-connection.js';
import type { QueueConfig } from '../config/queue-config.js';
import { silentLogger, type Logger } from '../logger.js';
import { openExportQueue, openFlowProducer } from './export-queue.js';
import { EXPORT_QUEUE_NAME } from './queue-names.js';
import type { QueueTuning } from '../config/queue-tuning.js';
import { closeRedis, connectRedis } from './redis-connection.js';
import { settleWithin } from '../settle-within.js';
import { ShiftExportError } from '../errors.js';

/** Longest wait for each closing step. */
const CLOSE_TIMEOUT_MS = 3_000;

/** events() was still setting up when the producer was closed (a wait that was given up). */
export class ProducerClosedError extends ShiftExportError {
  constructor() {
    super('PRODUCER_CLOSED', 'the queue connection was closed while its events were being opened');
  }
}

export interface Producer {
  readonly config: QueueConfig;
  readonly connection: RedisClient;
  readonly queue: Queue;
  flows(): FlowProducer;
  /** A QueueEvents on a connection of its own (it blocks on Redis). */
  events(): Promise<QueueEvents>;
  close(): Promise<void>;
}

export interface ProducerOptions {
  readonly config: QueueConfig;
  readonly tuning: QueueTuning;
  readonly logger?: Logger;
  /** One-shot commands: give up after a few refused connections instead of waiting the full timeout. */
  readonly oneShot?: boolean;
}

export async function openProducer(options: ProducerOptions): Promise<Producer> {
  const { config, tuning } = options;
  const logger = options.logger ?? silentLogger;
  const connection = await connectRedis(config.redis, {
    role: 'producer',
    connectTimeoutMs: tuning.redisConnectTimeoutMs,
    logger,
    ...(options.oneShot === true ? { maxAttempts: 3 } : {}),
  });
  const queue = openExportQueue(connection, config);
  queue.on('error', (error) => logger.warn({ err: error }, 'queue error'));
  let flows: FlowProducer | undefined;
  const events: { queueEvents?: QueueEvents; connection: RedisClient }[] = [];
  let closed = false;
  return {
    config,
    connection,
    queue,
    flows() {
      if (flows === undefined) {
        flows = openFlowProducer(connection, config);
        flows.on('error', (error) => logger.warn({ err: error }, 'flow producer error'));
      }
      return flows;
    },
    async events() {
      const eventsConnection = await connectRedis(config.redis, {
        role: 'worker',
        connectTimeoutMs: tuning.redisConnectTimeoutMs,
        logger,
      });
      if (closed) {
        await closeRedis(eventsConnection);
        throw new ProducerClosedError();
      }
      const entry: { queueEvents?: QueueEvents; connection: RedisClient } = { connection: eventsConnection };
      events.push(entry);
      // Read from the stream's newest entry as it is now, not from '$': '$' means "after whatever
      // is newest when the first blocking read arrives", and a job that finishes before that read
      // (after its waiter found it unfinished) would never be heard of: the wait would hang.
      const lastEventId = await newestEventId(connection, queue.keys['events']!);
      if (closed) throw new ProducerClosedError();
      // BullMQ reads on a duplicate of eventsConnection. Not waiting for it to be ready (nor for its
      // version check, which is what that wait is for) keeps it closable: BullMQ's close first
      // waits for the connection to be ready, so a Redis that goes away while the duplicate
      // connects would otherwise leave a connection nobody can end, and a process that never exits.
      // Nothing is missed meanwhile: the reads start from lastEventId whenever they start.
      entry.queueEvents = new QueueEvents(EXPORT_QUEUE_NAME, {
        connection: eventsConnection,
        prefix: config.prefix,
        lastEventId,
        skipWaitingForReady: true,
        skipVersionCheck: true,
      });
      entry.queueEvents.on('error', (error) => logger.warn({ err: error }, 'queue events error'));
      return entry.queueEvents;
    },
    async close() {
      // Bounded: with Redis unreachable these would wait for it forever, and a command that has
      // already said what went wrong must still exit.
      closed = true;
      for (const e of events) {
        if (e.queueEvents !== undefined) await settleWithin(e.queueEvents.close(), CLOSE_TIMEOUT_MS);
        await closeRedis(e.connection);
      }
      if (flows !== undefined) await settleWithin(flows.close(), CLOSE_TIMEOUT_MS);
      await settleWithin(queue.close(), CLOSE_TIMEOUT_MS);
      await closeRedis(connection);
    },
  };
}

/** The id of the newest entry of the events stream; '0-0' when it has none (or does not exist). */
async function newestEventId(connection: RedisClient, eventsKey: string): Promise<string> {
  const [newest] = await connection.xrevrange(eventsKey, '+', '-', 'COUNT', 1);
  return newest?.[0] ?? '0-0';
}
