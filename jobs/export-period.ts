// The job handler of `export-period` jobs: check the job's data (jobs outlive deploys, and anyone
// who reaches Redis or the dashboard can write one), refuse a destination outside EXPORT_DEST and
// EXPORT_DEST_ALLOW, then run the same ConfiguredExport as `shift-export run` (src/export/
// configured-export.ts) on a thread of its own (export-thread.ts) — upstream from WFM_*, files to the
// job's dest or EXPORT_DEST — with progress throttled onto the job, the BullMQ AbortSignal passed
// down (so a cancelled job aborts its uploads), and a compact summary of the published manifest as
// the job's result. Counters for /metrics go to Redis when the attempt ends. A job that names an
// export definition (`export`) takes the definition's filter and split from the worker's loaded
// definitions; a name they do not hold fails the job at once (jobs outlive deploys).

import { UnrecoverableError, type Job } from 'bullmq';
import type { RedisClient } from '../src/queue/redis-connection.js';
import type { ConnectedWfmConfig } from '../src/config/wfm-config.js';
import type { ExportConfig } from '../src/config/export-config.js';
import type { S3Config } from '../src/config/s3-config.js';
import { assertDestinationAllowed, destinationRoots } from '../src/destinations/allowed-destination.js';
import { parseDestination } from '../src/destination-address.js';
import { exportScopeOf, requireDefinition } from '../src/definitions/definition-exports.js';
import type { ExportDefinitions } from '../src/definitions/export-definition.js';
import { ShiftExportError } from '../src/errors.js';
import { parsePeriod } from '../src/domain/period.js';
import type { ExportProgress } from '../src/export/progress.js';
import type { Logger, LogLevel } from '../src/logger.js';
import type { ExportJobResult } from '../src/queue/export-job-result.js';
import { exportJobDataSchema, parseJobData } from '../src/queue/export-job-data.js';
import { recordExportOutcome } from '../src/queue/export-metrics.js';
import { isShutdownAbort, TransientJobError } from '../src/queue/job-failure.js';
import { throttle } from '../src/queue/progress-throttle.js';
import { exportInThread } from './export-thread.js';

export interface ExportPeriodDeps {
  readonly exportConfig: ExportConfig;
  readonly wfm: ConnectedWfmConfig;
  /** Read only for an s3:// destination. */
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  /** The worker's export definitions now, for a job that names one. */
  readonly definitions: () => ExportDefinitions;
  /** Where the shared /metrics counters live; absent: not recorded. */
  readonly metrics?: { readonly redis: RedisClient; readonly prefix: string };
  /** Smallest time between two progress writes (default 1000 ms). */
  readonly progressIntervalMs?: number;
}

export function createExportPeriodProcessor(
  deps: ExportPeriodDeps,
): (job: Job, token?: string, signal?: AbortSignal) => Promise<ExportJobResult> {
  const roots = destinationRoots(deps.exportConfig);
  return async (job, _token, signal) => {
    const log = deps.logger.child({ jobId: job.id, attempt: job.attemptsMade + 1 });
    const data = parseJobData(exportJobDataSchema, job.data, 'export');
    // Checked here too, so that a job that can never run fails before a thread starts. Job data
    // names its members `from` and `to`, as an API body does.
    parsePeriod(data.from, data.to, {
      maxDays: deps.exportConfig.maxDays,
      fields: { from: 'from', to: 'to' },
    });
    // Here, where the writing happens: whoever put the job into Redis, it writes nowhere else.
    // Three checks, each before writes the others do not cover: this one before the destination's
    // check() (mkdir and a probe file; and the only one for S3), begin()'s before the first export
    // file (the divisions are fetched in between), beforeSealing's before the manifest and link.
    const scope =
      data.export === undefined ? {} : exportScopeOf(requireDefinition(deps.definitions(), data.export));
    const destText = data.dest ?? deps.exportConfig.dest;
    await assertDestinationAllowed(destText, roots);
    const s3 = parseDestination(destText).kind === 's3' ? deps.s3Config() : undefined;
    const progress = throttle<ExportProgress>((p) => {
      job
        .updateProgress({
          phase: p.phase,
          rows: p.rows,
          exported: p.exported,
          rejected: p.rejected,
          attempt: job.attemptsStarted,
        })
        .catch((error: unknown) => {
          log.warn({ err: error }, 'could not record the job progress');
        });
    }, deps.progressIntervalMs ?? 1000);
    const input = {
      from: data.from,
      to: data.to,
      formats: data.formats,
      ...scope,
      dest: destText,
      exportConfig: deps.exportConfig,
      wfm: deps.wfm,
      s3,
      logLevel: deps.logger.level as LogLevel,
    };
    const settled = await exportInThread(input, {
      jobId: job.id,
      log,
      onProgress: (p) => progress.push(p),
      signal,
    });
    progress.cancel();
    // A job handed back at shutdown did not fail: it runs again elsewhere.
    if (deps.metrics !== undefined && !isShutdownAbort(signal)) {
      await recordExportOutcome(deps.metrics.redis, deps.metrics.prefix, settled.outcome).catch(
        (error: unknown) => {
          log.warn({ err: error }, 'could not record export metrics');
        },
      );
    }
    if (settled.type === 'completed') return settled.summary;
    const { line, terminal, error } = settled.failure;
    // The thread's error again, so the worker's failure handling (notifications) sees its code.
    if (error !== undefined) throw new ShiftExportError(error.code, error.message, { retryable: !terminal });
    throw terminal ? new UnrecoverableError(line) : new TransientJobError(line);
  };
}
