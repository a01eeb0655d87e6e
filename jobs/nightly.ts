// The legacy nightly run: jobs named `nightly` that its scheduler (`nightly-export`, before export
// definitions) left in Redis. The nightly schedule is now the `nightly` export definition's
// `export:nightly` (scheduled-export.ts), which exports the same days to the same place; this
// processor runs what an upgrade finds still queued. Each run enqueues one export job per day —
// yesterday in NIGHTLY_TZ and the LOOKBACK_DAYS days before it — because shifts that finish late
// appear in the report only after they finish, so a day is exported again on the following nights. The day jobs use the
// ordinary export ids: one that is waiting or running (say, an on-demand export of the same day) is
// joined, not duplicated; one that completed before this run began is run again; one completed
// after it (this very run, retried) is not.

import type { Job, Queue } from 'bullmq';
import type { ExportConfig } from '../src/config/export-config.js';
import type { ScheduleConfig } from '../src/config/schedule-config.js';
import { localDay } from '../src/definitions/zoned-time.js';
import { periodFromDay, type Period } from '../src/domain/period.js';
import type { Logger } from '../src/logger.js';
import { enqueueExport } from '../src/queue/enqueue-export.js';
import { exportJobData, nightlyJobDataSchema, parseJobData } from '../src/queue/export-job-data.js';

/**
 * The days a nightly run at `at` (ms since the epoch) exports: yesterday in `tz` first, then the
 * `lookbackDays` days before it, each a one-day period. "Yesterday" is the local date before the
 * run's own local date, whatever the hour (a run at 00:00 exports the day that just ended).
 */
export function nightlyPeriods(at: number, tz: string, lookbackDays: number): Period[] {
  const yesterday = localDay(at, tz) - 1;
  const periods: Period[] = [];
  for (let back = 0; back <= lookbackDays; back++) periods.push(periodFromDay(yesterday - back));
  return periods;
}

export interface NightlyDeps {
  readonly queue: Queue;
  readonly schedule: ScheduleConfig;
  readonly exportConfig: ExportConfig;
  readonly logger: Logger;
}

export interface NightlyResult {
  readonly scheduled_at: string;
  readonly tz: string;
  readonly days: readonly { readonly date: string; readonly job_id: string; readonly created: boolean }[];
}

/** When the run was due: the scheduler's slot, not when a worker got round to it. */
export function scheduledAt(job: Pick<Job, 'opts' | 'timestamp'>): number {
  return job.opts.prevMillis ?? job.timestamp + (job.opts.delay ?? 0);
}

export function createNightlyProcessor(deps: NightlyDeps): (job: Job) => Promise<NightlyResult> {
  return async (job) => {
    parseJobData(nightlyJobDataSchema, job.data, 'nightly');
    const at = scheduledAt(job);
    const periods = nightlyPeriods(at, deps.schedule.tz, deps.schedule.lookbackDays);
    const days: { date: string; job_id: string; created: boolean }[] = [];
    for (const period of periods) {
      // No dest: the worker's EXPORT_DEST, resolved when the day's export runs.
      const data = exportJobData(period.from, period.to, deps.exportConfig.formats);
      const outcome = await enqueueExport(deps.queue, data, { rerunFinishedBefore: at });
      days.push({ date: period.from, job_id: outcome.jobId, created: outcome.created });
    }
    deps.logger.info(
      { scheduledAt: new Date(at).toISOString(), tz: deps.schedule.tz, days },
      'nightly exports enqueued',
    );
    return { scheduled_at: new Date(at).toISOString(), tz: deps.schedule.tz, days };
  };
}
