// How the export worker stops, as an ordered list of bounded steps (shutdown-sequence.ts):
//   1. exports-finish      running exports may finish, for SHUTDOWN_GRACE_MS (a second signal
//                          ends the wait); with none running this step ends at once. Cut short:
//                          the running exports are aborted (BullMQ's AbortSignal -> runExport ->
//                          uploads aborted, nothing published) and handed back to the wait list.
//   2. exports-hand-back   the aborted exports leave the processor, having been handed back with
//                          job.moveToWait (no attempt used), for HAND_BACK_TIMEOUT_MS. Cut short,
//                          the stop is not clean (exit 1): their locks expire and other workers
//                          take them.
//   3. export-worker-close BullMQ's Worker.close(), for CLOSE_STEP_TIMEOUT_MS. It waits for the
//                          `end` of its blocking client and for the command in flight there. In
//                          the middle of a failover, or while Redis is down, neither comes: an
//                          ioredis client disconnected between two reconnect attempts never
//                          emits `end` (bullmq#4656, ioredis#2169), and a cluster client revived
//                          by a slots refresh keeps the command queued forever
//                          (test/queue/stop-during-failover.int.test.ts). The exports are done by
//                          then: cut short, it is logged and the stop goes on.
//   4. queues-close        the export queue, the notification worker and queue.
//   5. redis-close         QUIT on the worker's connection; cut short, it is dropped.
// The stop took no new job from its first moment: Worker.close() is called before step 1.

import type { Queue, Worker } from 'bullmq';
import type { Logger } from '../src/logger.js';
import { SHUTDOWN_REASON } from '../src/queue/job-failure.js';
import { closeRedis, type RedisClient } from '../src/queue/redis-connection.js';
import type { RunningJobs } from './running-jobs.js';
import { ShutdownSequence, type ShutdownStep } from './shutdown-sequence.js';

/** How long handing jobs back may take after the grace period before the worker gives up on it. */
export const HAND_BACK_TIMEOUT_MS = 15_000;
/** Longest wait for each closing step after that (they hang while Redis is unreachable). */
export const CLOSE_STEP_TIMEOUT_MS = 3_000;

/** The names of the steps, in order, as the log's `step` field shows them. */
export const STOP_STEPS = [
  'exports-finish',
  'exports-hand-back',
  'export-worker-close',
  'queues-close',
  'redis-close',
] as const;

export interface WorkerStopParts {
  readonly worker: Worker;
  readonly queue: Queue;
  readonly notifications: { readonly worker: Worker; readonly queue: Queue } | undefined;
  readonly connection: RedisClient;
  readonly jobs: RunningJobs;
  readonly graceMs: number;
  readonly logger: Logger;
}

/**
 * stop(reason): resolves true when every running export finished or was handed back in time. A
 * second call ends the grace period at once and returns the same promise.
 */
export function workerStop(parts: WorkerStopParts): (reason: string) => Promise<boolean> {
  const { worker, queue, notifications, connection, jobs, logger } = parts;
  let stopping: { sequence: ShutdownSequence; done: Promise<boolean> } | undefined;
  return (reason) => {
    if (stopping !== undefined) {
      stopping.sequence.hurry();
      return stopping.done;
    }
    logger.info(
      { reason, graceMs: parts.graceMs, running: jobs.size },
      'stopping: no new jobs; running exports may finish within the grace period',
    );
    // From here BullMQ takes no new job; the promise is the close's end (step 3).
    const closed = worker.close();
    const abortRunning = (): void => {
      if (jobs.size === 0) return;
      logger.warn({ running: jobs.size }, 'aborting running exports and handing them back to the queue');
      worker.cancelAllJobs(SHUTDOWN_REASON);
    };
    const steps: ShutdownStep[] = [
      {
        name: 'exports-finish',
        deadlineMs: parts.graceMs,
        hurryable: true,
        run: () => jobs.whenIdle(),
        onCutShort: abortRunning,
      },
      {
        name: 'exports-hand-back',
        deadlineMs: HAND_BACK_TIMEOUT_MS,
        critical: true,
        run: () => jobs.whenIdle(),
      },
      {
        name: 'export-worker-close',
        deadlineMs: CLOSE_STEP_TIMEOUT_MS,
        run: () => closed,
        // A job BullMQ had already fetched when the stop began may have started since.
        onCutShort: abortRunning,
      },
      {
        name: 'queues-close',
        deadlineMs: CLOSE_STEP_TIMEOUT_MS,
        run: () => Promise.all([queue.close(), notifications?.worker.close(), notifications?.queue.close()]),
      },
      {
        name: 'redis-close',
        deadlineMs: CLOSE_STEP_TIMEOUT_MS,
        run: () => closeRedis(connection),
        onCutShort: () => connection.disconnect(),
      },
    ];
    const sequence = new ShutdownSequence(steps, logger);
    const done = sequence.run().then((outcome) => {
      const clean = outcome.clean && jobs.size === 0;
      if (!clean)
        logger.error(
          { running: jobs.size },
          'running jobs did not stop in time; their locks will expire and other workers will take them',
        );
      logger.info({ cutShort: outcome.cutShort, clean }, 'worker stopped');
      return clean;
    });
    stopping = { sequence, done };
    return done;
  };
}
