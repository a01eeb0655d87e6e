// The few lines `run` and `demo` print when an export is published: where the files are and the
// headline numbers an analyst checks first.

import type { ExportResult } from '../export/run-export.js';

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

export function formatExportSummary(result: ExportResult): string {
  const { manifest } = result;
  const c = manifest.counts;
  const s = manifest.statistics;
  return [
    `Export ${manifest.export_id} of ${manifest.period.from}..${manifest.period.to} published to ${result.location}`,
    `  shifts exported   ${c.exported.toLocaleString('en-US')} (fetched ${c.fetched.toLocaleString('en-US')}, rejected ${c.rejected}, duplicates ${c.duplicates}, outside the period ${c.outside_window}, flagged ${c.flagged})`,
    `  start match rate  ${percent(s['start_match_rate'])}`,
    `  finish match rate ${percent(s['finish_match_rate'])}`,
    `  files             ${manifest.files.map((f) => f.name).join(', ')}, manifest.json`,
  ].join('\n');
}
