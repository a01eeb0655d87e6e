// The parent of a backfill flow. BullMQ runs it once every child — one export job per day —
// completed (a child that fails for good fails this job at once: failParentOnFailure). It gathers
// the days' export summaries into an index, stores it as `<dest>/backfill-<from>_<to>.json` and
// returns it as the job's result. The index is a file it writes, so its dest must lie inside
// EXPORT_DEST or EXPORT_DEST_ALLOW like any export's: a flow's parent data may differ from its
// children's.

import type { Job } from 'bullmq';
import type { ExportConfig } from '../src/config/export-config.js';
import type { S3Config } from '../src/config/s3-config.js';
import { assertDestinationAllowed, destinationRoots } from '../src/destinations/allowed-destination.js';
import { periodDates, type Period } from '../src/domain/period.js';
import { ShiftExportError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { writeBackfillIndex } from '../src/export/backfill-index-file.js';
import { backfillJobDataSchema, parseJobData } from '../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../src/queue/export-job-result.js';

export interface BackfillDeps {
  readonly exportConfig: ExportConfig;
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  readonly now?: () => Date;
}

export interface BackfillDay {
  readonly date: string;
  readonly export_id: string;
  readonly location: string;
  readonly manifest_location: string;
  readonly counts: ExportJobResult['counts'];
  readonly changes?: ExportJobResult['changes'];
  readonly changes_unavailable?: ExportJobResult['changes_unavailable'];
}

export interface BackfillIndex {
  readonly backfill_job_id: string;
  readonly period: Period;
  readonly formats: readonly string[];
  readonly generated_at: string;
  readonly totals: { readonly fetched: number; readonly exported: number; readonly rejected: number };
  readonly days: readonly BackfillDay[];
}

export interface BackfillResult extends BackfillIndex {
  readonly index_location: string;
}

/** A day's export result is missing from the children's values: the flow was tampered with. */
export class BackfillIncompleteError extends ShiftExportError {
  constructor(message: string) {
    super('BACKFILL_INCOMPLETE', message);
  }
}

export function buildBackfillIndex(
  jobId: string,
  period: Period,
  formats: readonly string[],
  results: readonly ExportJobResult[],
  now: Date,
): BackfillIndex {
  const byDate = new Map(results.map((r) => [r.period.from, r]));
  const days: BackfillDay[] = [];
  const missing: string[] = [];
  for (const date of periodDates(period)) {
    const r = byDate.get(date);
    if (r === undefined) {
      missing.push(date);
      continue;
    }
    days.push({
      date,
      export_id: r.export_id,
      location: r.location,
      manifest_location: r.manifest_location,
      counts: r.counts,
      ...(r.changes === undefined ? {} : { changes: r.changes }),
      ...(r.changes_unavailable === undefined ? {} : { changes_unavailable: r.changes_unavailable }),
    });
  }
  if (missing.length > 0)
    throw new BackfillIncompleteError(`backfill ${jobId} has no export result for ${missing.join(', ')}`);
  const totals = { fetched: 0, exported: 0, rejected: 0 };
  for (const d of days) {
    totals.fetched += d.counts.fetched;
    totals.exported += d.counts.exported;
    totals.rejected += d.counts.rejected;
  }
  return { backfill_job_id: jobId, period, formats, generated_at: now.toISOString(), totals, days };
}

export function createBackfillProcessor(deps: BackfillDeps): (job: Job) => Promise<BackfillResult> {
  const roots = destinationRoots(deps.exportConfig);
  return async (job) => {
    const data = parseJobData(backfillJobDataSchema, job.data, 'backfill');
    const destText = data.dest ?? deps.exportConfig.dest;
    await assertDestinationAllowed(destText, roots);
    const period: Period = { from: data.from, to: data.to };
    const values = await job.getChildrenValues<unknown>();
    const results = Object.values(values).flatMap((v) => {
      const r = readExportJobResult(v);
      return r === undefined ? [] : [r];
    });
    const index = buildBackfillIndex(
      job.id ?? '?',
      period,
      data.formats,
      results,
      (deps.now ?? (() => new Date()))(),
    );
    const location = await writeBackfillIndex(
      destText,
      period,
      `${JSON.stringify(index, null, 2)}\n`,
      deps.s3Config,
    );
    deps.logger.info({ jobId: job.id, days: index.days.length, location }, 'backfill index written');
    return { ...index, index_location: location };
  };
}
