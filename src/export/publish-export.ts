// The last step of an export: once every file is stored, the manifest — what the export holds: the
// counts, the statistics, each file with its size and sha256, the changes since the previous
// export — is written and published. Only now does the export become visible, all at once.

import type { Period } from '../domain/period.js';
import {
  divisionRates,
  lowestShops,
  manifestStatistics,
  renderManifest,
  type Manifest,
  type ManifestFile,
} from '../render/manifest.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { SplitResult } from './division-split.js';
import type { ExportFiles } from './export-files.js';
import type { ExportSettings } from './export-settings.js';
import type { ExportEnding } from './table-output.js';
import { throwIfAborted } from './throw-if-aborted.js';

/** What the manifest says besides the files. */
export interface ExportFacts {
  readonly exportId: string;
  readonly period: Period;
  readonly startedAt: Date;
  /** The upstream's base URL (never a token). */
  readonly settings: Pick<ExportSettings, 'sourceBaseUrl' | 'matchRateThreshold'>;
  /** The counts, the statistics, and what was counted against the previous export. */
  readonly ending: ExportEnding;
  /** row-hashes.bin as stored; absent when the fingerprints failed. */
  readonly rowHashes: ManifestFile | undefined;
  /** An export split by division: its divisions, and each one's row-hashes.bin. */
  readonly split?: SplitResult | undefined;
}

export interface PublishedManifest {
  readonly manifest: Manifest;
  /** Where the export is now visible (folder or s3:// URL). */
  readonly location: string;
  readonly manifestLocation: string;
}

export async function publishExport(
  files: ExportFiles,
  facts: ExportFacts,
  signal: AbortSignal | undefined,
): Promise<PublishedManifest> {
  const stored = await files.stored();
  const { exportId, period, startedAt, settings, ending, rowHashes, split } = facts;
  const manifest: Manifest = {
    export_id: exportId,
    period: { from: period.from, to: period.to },
    generated_at: startedAt.toISOString(),
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    source: { base_url: settings.sourceBaseUrl },
    counts: ending.counts,
    statistics: manifestStatistics(ending.summaries.overall),
    files: [...stored, ...(rowHashes === undefined ? [] : [rowHashes]), ...(split?.rowHashes ?? [])],
    ...(split === undefined ? {} : { divisions: [...split.divisions] }),
    // The period at a glance for the whole export's mail, and for the next period's to compare with.
    division_rates: divisionRates(ending.summaries.divisions),
    lowest_shops: lowestShops(ending.summaries.shops),
    match_rate_threshold: settings.matchRateThreshold,
    ...ending.changes,
  };
  throwIfAborted(signal);
  const published = await files.publish(renderManifest(manifest));
  return { manifest, location: published.location, manifestLocation: published.manifestLocation };
}
