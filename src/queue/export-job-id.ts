// Job ids that make enqueueing idempotent: the same period, formats and destination always give the
// same id, so BullMQ keeps one job for them (an add with an existing id is ignored). Ids are
// readable (`export-2026-11-01_2026-11-07-csv+xlsx-3f9a1c0b2e`), never contain ":" (BullMQ's key
// separator) and are never integers (BullMQ's own ids). The destination enters as a short hash: it
// may be long, and `dest` absent ("the worker's EXPORT_DEST") is a destination of its own. An
// export of an export definition names it after `export-` (`export-weekly-2026-11-16_…`): two
// definitions filter and split the same period differently, so theirs are two jobs.

import { createHash } from 'node:crypto';
import type { ExportFormat } from '../domain/export-format.js';
import type { Period } from '../domain/period.js';

/** The destination as it enters ids: trimmed, one trailing "/" dropped; absent = "default". */
function destinationKey(dest: string | undefined): string {
  if (dest === undefined) return 'default';
  const trimmed = dest.trim();
  return trimmed.length > 1 && trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
}

function destinationHash(dest: string | undefined): string {
  return createHash('sha256').update(destinationKey(dest)).digest('hex').slice(0, 10);
}

function formatsKey(formats: readonly ExportFormat[]): string {
  return [...new Set(formats)].sort().join('+');
}

/** The id of the export job of `period` in `formats` to `dest`, for the export definition `definition`. */
export function exportJobId(
  period: Period,
  formats: readonly ExportFormat[],
  dest: string | undefined,
  definition?: string,
): string {
  const name = definition === undefined ? '' : `${definition}-`;
  return `export-${name}${period.from}_${period.to}-${formatsKey(formats)}-${destinationHash(dest)}`;
}

/** The id of a backfill flow's parent job. */
export function backfillJobId(
  period: Period,
  formats: readonly ExportFormat[],
  dest: string | undefined,
): string {
  return `backfill-${period.from}_${period.to}-${formatsKey(formats)}-${destinationHash(dest)}`;
}

/**
 * The id of one day of a backfill: scoped to its backfill, because a flow's child must be a new
 * job — a day exported before (completed under its export id) would otherwise never run again and
 * its parent would wait for it forever.
 */
export function backfillDayJobId(parentId: string, day: string): string {
  return `${parentId}-day-${day}`;
}
