// What an export job returns (and BullMQ stores as its return value): the manifest's summary —
// counts, statistics, files with their paths, changes since the previous export (or why they
// could not be counted) — and where the export is. The API's GET /exports/:id, `status` and the
// backfill index read it back, so its shape is checked with zod on the way in as well.

import { z } from 'zod';
import {
  CHANGES_EXPLAINED,
  changesAreExplained,
  manifestMembers,
  type Manifest,
} from '../render/manifest.js';

export const exportJobResultSchema = manifestMembers
  .pick({
    export_id: true,
    period: true,
    generated_at: true,
    counts: true,
    statistics: true,
    files: true,
    divisions: true,
    previous: true,
    changes: true,
    changes_unavailable: true,
  })
  .extend({
    location: z.string(),
    manifest_location: z.string(),
    duration_ms: z.number().nonnegative(),
  })
  .refine(changesAreExplained, CHANGES_EXPLAINED);

export type ExportJobResult = z.infer<typeof exportJobResultSchema>;

/** The members of an ExportResult the summary reads (named here: the queue room does not import export/). */
interface FinishedExport {
  readonly manifest: Manifest;
  readonly location: string;
  readonly manifestLocation: string;
  readonly durationMs: number;
}

/** The summary of `result`, whose manifest is the one published. */
export function exportJobResult(result: FinishedExport): ExportJobResult {
  const m = result.manifest;
  return {
    export_id: m.export_id,
    period: m.period,
    generated_at: m.generated_at,
    counts: m.counts,
    statistics: m.statistics,
    files: m.files,
    ...(m.divisions === undefined ? {} : { divisions: m.divisions }),
    ...(m.previous === undefined ? {} : { previous: m.previous }),
    ...(m.changes === undefined ? {} : { changes: m.changes }),
    ...(m.changes_unavailable === undefined ? {} : { changes_unavailable: m.changes_unavailable }),
    location: result.location,
    manifest_location: result.manifestLocation,
    duration_ms: result.durationMs,
  };
}

/** A stored return value read back; undefined when it is not an export result. */
export function readExportJobResult(value: unknown): ExportJobResult | undefined {
  const parsed = exportJobResultSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
