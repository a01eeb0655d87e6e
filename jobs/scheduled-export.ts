// The scheduled runs of the export definitions: one BullMQ Job Scheduler per definition with a
// schedule, `export:<name>`, its cron pattern in its time zone, its jobs naming only the definition.
// reconcileSchedules makes Redis hold exactly the schedulers of a set of definitions: it upserts
// each (idempotent: an unchanged one keeps its next run), then removes every `export:` scheduler
// of a definition not in the set (or without a schedule now) and the legacy `nightly-export` one,
// which the nightly definition's `export:nightly` replaces. It touches no other scheduler. Every
// worker reconciles at start and on SIGHUP, one at a time (a short lock in Redis, so that two
// workers starting together with different files do not interleave their upserts and removals),
// so the schedules in Redis are those of the file of the worker that reconciled last: give every
// worker the same file.
//
// A run takes its definition from the worker's loaded set (an unknown name is a terminal failure:
// the definition left the file, or another worker's file has it), reads the run's local date from
// the scheduler's slot in the definition's time zone, and enqueues one export job per period of the
// run. The exports use the ordinary idempotent ids (named after the definition): one waiting or
// running is joined, one completed before this run began is run again, one completed after it
// (this very run, retried) is not.

import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import type { RedisClient } from '../src/queue/redis-connection.js';
import type { QueueConfig } from '../src/config/queue-config.js';
import { definitionExports, requireDefinition } from '../src/definitions/definition-exports.js';
import { periodsOfRunAt } from '../src/definitions/definition-runs.js';
import { periodTimeZone, type ExportDefinitions } from '../src/definitions/export-definition.js';
import type { Logger } from '../src/logger.js';
import { enqueueExport } from '../src/queue/enqueue-export.js';
import { definitionRunJobDataSchema, exportJobData, parseJobData } from '../src/queue/export-job-data.js';
import { defaultJobOptions } from '../src/queue/export-queue.js';
import {
  DEFINITION_SCHEDULER_PREFIX,
  definitionSchedulerId,
  EXPORT_QUEUE_NAME,
  JOB_NAMES,
  LEGACY_NIGHTLY_SCHEDULER_ID,
} from '../src/queue/queue-names.js';
import { scheduledAt } from './nightly.js';

export interface ReconciledSchedules {
  /** The scheduler ids upserted, in file order. */
  readonly upserted: readonly string[];
  /** The scheduler ids removed. */
  readonly removed: readonly string[];
}

/** How long one reconcile may hold the lock; it takes a few Redis round trips. */
export const SCHEDULES_LOCK_MS = 10_000;
/** How long a worker waits for another's reconcile before it goes ahead anyway (and says so). */
const SCHEDULES_LOCK_WAIT_MS = 15_000;

export function schedulesLockKey(prefix: string): string {
  return `${prefix}:${EXPORT_QUEUE_NAME}:schedules-lock`;
}

/** Releases the lock only when it is still ours (it may have expired and been taken by another). */
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/**
 * Runs `body` holding the reconcile lock of the queue's prefix. A lock held past SCHEDULES_LOCK_MS
 * expires (a worker killed mid-reconcile does not block the others); a worker that waited
 * SCHEDULES_LOCK_WAIT_MS goes ahead without it rather than not start.
 */
export async function withSchedulesLock<T>(
  redis: RedisClient,
  prefix: string,
  logger: Logger,
  body: () => Promise<T>,
): Promise<T> {
  const key = schedulesLockKey(prefix);
  const token = randomUUID();
  const deadline = Date.now() + SCHEDULES_LOCK_WAIT_MS;
  let held = false;
  while (!held) {
    held = (await redis.set(key, token, 'PX', SCHEDULES_LOCK_MS, 'NX')) === 'OK';
    if (held) break;
    if (Date.now() > deadline) {
      logger.warn({ key }, 'another worker held the schedules lock too long: reconciling without it');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    return await body();
  } finally {
    if (held) await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}

/** Makes the queue's `export:` schedulers those of `set` (see the module comment); call it under withSchedulesLock. */
export async function reconcileSchedules(
  queue: Queue,
  set: ExportDefinitions,
  settings: Pick<QueueConfig, 'attempts' | 'backoffMs'>,
): Promise<ReconciledSchedules> {
  const upserted: string[] = [];
  for (const definition of set.definitions) {
    if (definition.schedule === undefined) continue;
    const id = definitionSchedulerId(definition.name);
    await queue.upsertJobScheduler(
      id,
      { pattern: definition.schedule.cron, tz: definition.schedule.tz },
      {
        name: JOB_NAMES.scheduledExport,
        data: { export: definition.name },
        opts: defaultJobOptions(settings),
      },
    );
    upserted.push(id);
  }
  // After the upserts: export:nightly is in place before nightly-export goes.
  const keep = new Set(upserted);
  const removed: string[] = [];
  for (const scheduler of await queue.getJobSchedulers(0, -1)) {
    const id = scheduler.key;
    const ours = id.startsWith(DEFINITION_SCHEDULER_PREFIX) || id === LEGACY_NIGHTLY_SCHEDULER_ID;
    if (!ours || keep.has(id)) continue;
    await queue.removeJobScheduler(id);
    removed.push(id);
  }
  return { upserted, removed };
}

export interface ScheduledExportDeps {
  readonly queue: Queue;
  /** The worker's definitions now (SIGHUP may have replaced them since the job was scheduled). */
  readonly definitions: () => ExportDefinitions;
  readonly logger: Logger;
}

export interface ScheduledExportResult {
  readonly export: string;
  readonly scheduled_at: string;
  readonly tz: string;
  readonly exports: readonly {
    readonly from: string;
    readonly to: string;
    readonly job_id: string;
    readonly created: boolean;
  }[];
}

export function createScheduledExportProcessor(
  deps: ScheduledExportDeps,
): (job: Job) => Promise<ScheduledExportResult> {
  return async (job) => {
    const { export: name } = parseJobData(definitionRunJobDataSchema, job.data, 'scheduled export');
    const definition = requireDefinition(deps.definitions(), name);
    const at = scheduledAt(job);
    const tz = periodTimeZone(definition);
    const exports: ScheduledExportResult['exports'][number][] = [];
    for (const planned of definitionExports(definition, periodsOfRunAt(definition, at))) {
      const data = exportJobData(
        planned.period.from,
        planned.period.to,
        planned.formats,
        planned.dest,
        planned.definition,
      );
      const outcome = await enqueueExport(deps.queue, data, { rerunFinishedBefore: at });
      exports.push({ ...planned.period, job_id: outcome.jobId, created: outcome.created });
    }
    const scheduled = new Date(at).toISOString();
    deps.logger.info({ export: name, scheduledAt: scheduled, tz, exports }, 'scheduled exports enqueued');
    return { export: name, scheduled_at: scheduled, tz, exports };
  };
}
