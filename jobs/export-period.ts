// The processor of `export-period` jobs: check the job's data (jobs outlive deploys, and anyone who
// reaches Redis or the dashboard can write one), refuse a destination outside EXPORT_DEST and
// EXPORT_DEST_ALLOW, then run the same PeriodExport as `shift-export run` (src/export/
// period-export.ts) — upstream from WFM_*, files to the job's dest or EXPORT_DEST — with progress
// throttled onto the job, the BullMQ AbortSignal passed down (so a cancelled job aborts its
// uploads), and a compact summary of the published manifest as the job's result. Counters for
// /metrics go to Redis when the attempt ends.

import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ConnectedWfmConfig, ExportConfig, S3Config } from '../src/config.js';
import { assertDestinationAllowed, destinationRoots } from '../src/destinations/allowed-destination.js';
import { parsePeriod } from '../src/domain/period.js';
import { PeriodExport } from '../src/export/period-export.js';
import type { ExportProgress } from '../src/export/progress.js';
import type { Logger } from '../src/logger.js';
import { exportJobResult, type ExportJobResult } from '../src/queue/export-job-result.js';
import { exportJobDataSchema, parseJobData } from '../src/queue/export-job-data.js';
import { recordExportOutcome, type ExportOutcome } from '../src/queue/export-metrics.js';
import { isShutdownAbort } from '../src/queue/job-failure.js';
import { throttle } from '../src/queue/progress-throttle.js';

export interface ExportPeriodDeps {
  readonly exportConfig: ExportConfig;
  readonly wfm: ConnectedWfmConfig;
  /** Read only for an s3:// destination. */
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  /** Where the shared /metrics counters live; absent: not recorded. */
  readonly metrics?: { readonly redis: Redis; readonly prefix: string };
  /** Smallest time between two progress writes (default 1000 ms). */
  readonly progressIntervalMs?: number;
}

export function createExportProcessor(
  deps: ExportPeriodDeps,
): (job: Job, token?: string, signal?: AbortSignal) => Promise<ExportJobResult> {
  const roots = destinationRoots(deps.exportConfig);
  return async (job, _token, signal) => {
    const log = deps.logger.child({ jobId: job.id, attempt: job.attemptsMade + 1 });
    const data = parseJobData(exportJobDataSchema, job.data, 'export');
    const period = parsePeriod(data.from, data.to, deps.exportConfig.maxDays);
    // Here, where the writing happens: whoever put the job into Redis, it writes nowhere else.
    const destText = data.dest ?? deps.exportConfig.dest;
    await assertDestinationAllowed(destText, roots);
    let upstreamRetries = 0;
    const periodExport = await PeriodExport.open({
      dest: destText,
      roots,
      exportConfig: deps.exportConfig,
      wfm: deps.wfm,
      s3Config: deps.s3Config,
      logger: log,
      onUpstreamRetry: () => void upstreamRetries++,
    });
    const progress = throttle<ExportProgress>((p) => {
      job
        .updateProgress({ phase: p.phase, rows: p.rows, exported: p.exported, rejected: p.rejected })
        .catch((error: unknown) => {
          log.warn({ err: error }, 'could not record the job progress');
        });
    }, deps.progressIntervalMs ?? 1000);
    let outcome: ExportOutcome = { status: 'failed', upstreamRetries: 0 };
    try {
      const { result, published } = await periodExport.run(
        { period, formats: data.formats },
        { onProgress: (p) => progress.push(p), signal },
      );
      const summary = exportJobResult(result, published);
      outcome = {
        status: 'completed',
        upstreamRetries,
        durationMs: result.durationMs,
        counts: result.manifest.counts,
      };
      return summary;
    } catch (error) {
      outcome = { status: 'failed', upstreamRetries };
      throw error;
    } finally {
      const { wireBytes, decodedBytes } = periodExport.upstreamTraffic;
      outcome = { ...outcome, upstreamBytes: { wire: wireBytes, decoded: decodedBytes } };
      progress.cancel();
      await periodExport.close().catch(() => undefined);
      // A job handed back at shutdown did not fail: it runs again elsewhere.
      if (deps.metrics !== undefined && !isShutdownAbort(signal)) {
        await recordExportOutcome(deps.metrics.redis, deps.metrics.prefix, outcome).catch(
          (error: unknown) => {
            log.warn({ err: error }, 'could not record export metrics');
          },
        );
      }
    }
  };
}
