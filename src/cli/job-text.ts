// Jobs as text for the terminal: the table of `status`, the details of one job, and the lines that
// `enqueue --wait` prints when an export finished. JSON output (`--json`) uses JobView as is.
// Everything here was read from Redis, where anyone with access can write anything: text fields go
// through oneLine() so a job cannot rewrite the operator's terminal.

import { oneLine } from '../one-line.js';
import { countText } from './count-text.js';
import type { ExportJobResult } from '../queue/export-job-result.js';
import type { JobProgressView, JobView } from '../queue/job-view.js';
import type { MailDeliveryRecord } from '../queue/mail-delivery-record.js';

const n = countText;

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

export function progressText(progress: JobProgressView | null): string {
  if (progress === null) return '';
  const parts = [oneLine(progress.phase), `${n(progress.rows)} rows`];
  if (progress.rejected !== undefined && progress.rejected > 0)
    parts.push(`${n(progress.rejected)} rejected`);
  return parts.join(' ');
}

function periodText(view: JobView): string {
  if (view.period === null) return '-';
  return view.period.from === view.period.to ? view.period.from : `${view.period.from}..${view.period.to}`;
}

function shortTime(iso: string | null): string {
  return iso === null ? '-' : iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** The `status` table: one line per job, newest first as given. */
export function formatJobTable(views: readonly JobView[]): string {
  if (views.length === 0) return 'No jobs.';
  const rows = views.map((v) => [
    oneLine(v.id),
    v.state,
    periodText(v),
    v.state === 'completed' && v.result !== null
      ? `${n(v.result.counts.exported)} exported`
      : progressText(v.progress) || '-',
    shortTime(v.finished_at),
  ]);
  const header = ['ID', 'STATE', 'PERIOD', 'PROGRESS', 'FINISHED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * The rows changed since the previous export, or that they were not counted and why (the export is
 * published all the same); undefined when there was nothing to count against.
 */
function changesText(result: Pick<ExportJobResult, 'changes' | 'changes_unavailable'>): string | undefined {
  const ch = result.changes;
  if (ch === undefined) return undefined;
  if (ch === null) {
    const why = result.changes_unavailable;
    return oneLine(
      `changes           not counted (${why?.reason ?? 'no reason given'}): ${why?.message ?? ''}`,
    );
  }
  return `since ${oneLine(ch.previous_export_id)}: ${n(ch.added)} added, ${n(ch.removed)} removed, ${n(ch.changed)} changed`;
}

/** The lines of a finished export: where it is and the headline numbers. */
export function formatExportResult(result: ExportJobResult): string {
  const c = result.counts;
  const lines = [
    oneLine(
      `Export ${result.export_id} of ${result.period.from}..${result.period.to} published to ${result.location}`,
    ),
    `  shifts exported   ${n(c.exported)} (fetched ${n(c.fetched)}, rejected ${n(c.rejected)}, duplicates ${n(c.duplicates)}, outside the period ${n(c.outside_window)}, ${c.filtered_out === undefined ? '' : `filtered out ${n(c.filtered_out)}, `}flagged ${n(c.flagged)})`,
    `  start match rate  ${percent(result.statistics['start_match_rate'])}`,
    `  finish match rate ${percent(result.statistics['finish_match_rate'])}`,
  ];
  const changes = changesText(result);
  if (changes !== undefined) lines.push(`  ${changes}`);
  lines.push(`  files             ${oneLine(filesText(result))}, manifest.json`);
  return lines.join('\n');
}

/** The files' names; a split export's division files summed up as their folders. */
function filesText(result: ExportJobResult): string {
  const top = result.files.filter((f) => f.division_id === undefined).map((f) => f.name);
  const divisions = result.divisions;
  if (divisions === undefined) return top.join(', ');
  const changed = divisions.filter((d) => d.changed === true).length;
  const inFolders = result.files.length - top.length;
  return [
    ...top,
    `divisions/<division_id>/ for ${n(divisions.length)} divisions (${n(inFolders)} files; ${n(changed)} divisions changed)`,
  ].join(', ');
}

/** Which attempt runs now, or how many were used; runs handed back or stalled used none. */
function attemptsText(view: JobView): string {
  if (view.attempt_running === null) return `Attempts  ${view.attempts_made} of ${view.attempts_max} used`;
  const earlier = view.attempts_started - view.attempt_running;
  return `Attempt   ${view.attempt_running} of ${view.attempts_max}, running${
    earlier > 0 ? ` (taken ${view.attempts_started} times: earlier runs were handed back or stalled)` : ''
  }`;
}

/** `status JOB_ID`: every field of one job on its own line. */
export function formatJobDetails(view: JobView): string {
  const lines = [
    `Job       ${oneLine(view.id)} (${oneLine(view.name)})`,
    `State     ${view.state}`,
    `Period    ${periodText(view)}`,
    `Formats   ${view.formats.length === 0 ? '-' : view.formats.join(',')}`,
    `Dest      ${view.dest === null ? '(EXPORT_DEST of the worker)' : oneLine(view.dest)}`,
    ...(view.export === null ? [] : [`Export    ${oneLine(view.export)} (export definition)`]),
    attemptsText(view),
    `Created   ${shortTime(view.created_at)}`,
    `Started   ${shortTime(view.started_at)}`,
    `Finished  ${shortTime(view.finished_at)}`,
  ];
  if (view.progress !== null && view.state !== 'completed')
    lines.push(`Progress  ${progressText(view.progress)}`);
  if (view.failed_reason !== null) lines.push(`Failure   ${oneLine(view.failed_reason)}`);
  if (view.result !== null) lines.push('', formatExportResult(view.result));
  else if (view.return_value !== null && view.return_value !== undefined)
    lines.push(`Result    ${oneLine(JSON.stringify(view.return_value))}`);
  return lines.join('\n');
}

/** The e-mail of an export (deliver.email) as `status` shows it under the job. */
export function mailDeliveryText(record: MailDeliveryRecord): string {
  const state =
    record.state === 'failed'
      ? 'FAILED (export.delivery_failed)'
      : record.state === 'pending'
        ? 'retrying'
        : 'sent';
  const parts = [
    `${n(record.sent)} of ${n(record.messages)} messages sent`,
    ...(record.refused > 0 ? [`${n(record.refused)} refused`] : []),
    ...(record.failed > 0 ? [`${n(record.failed)} not sent`] : []),
    ...(record.skipped_recipients > 0 ? [`${n(record.skipped_recipients)} recipients skipped`] : []),
    ...(record.unchanged > 0 ? [`${n(record.unchanged)} unchanged, not sent`] : []),
    record.attempts === 1 ? '1 attempt' : `${n(record.attempts)} attempts`,
  ];
  const lines = [oneLine(`E-mail    ${state} for ${record.definition}: ${parts.join(', ')}`)];
  if (record.reason !== undefined && record.state !== 'sent')
    lines.push(oneLine(`          ${record.reason}`));
  return lines.join('\n');
}
