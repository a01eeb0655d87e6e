// What a delivery e-mail says and carries: which of the export's files belong to it (a division's
// mail holds only the files its manifest entry marks with that division), which are attached and
// which go as a link because they are larger than SMTP_MAX_ATTACHMENT_MB, and the subject, plain
// text and HTML that name the definition, the period, the division and the headline figures.
// Pure: manifest in, message out. The HTML is a single table with inline styles, which Outlook's
// Word engine renders; every name in it is escaped.

import type { ExportFormat } from '../domain/export-format.js';
import { displayName } from './mail-recipients.js';

/** A file of the manifest as delivery reads it (render/manifest.ts, with the split's division_id). */
export interface MailManifestFile {
  readonly name: string;
  /** Relative to the export's version folder, e.g. `divisions/3/shifts.xlsx`. */
  readonly path: string;
  readonly bytes: number;
  readonly rows: number;
  readonly content_type: string;
  readonly content_encoding?: string | undefined;
  /** The division whose rows the file holds (a split export); absent or null: the whole export. */
  readonly division_id?: number | null | undefined;
}

/** A division of a split export, as its manifest lists it. */
export interface MailManifestDivision {
  readonly division_id: number;
  readonly division_name: string;
  readonly shifts: number;
  /** Against the previous export of the definition and period; null when unknown. */
  readonly changed: boolean | null;
  readonly statistics?: Readonly<Record<string, number | null>> | undefined;
}

/** The members of a published manifest that delivery reads. */
export interface MailManifest {
  readonly export_id: string;
  readonly period: { readonly from: string; readonly to: string };
  readonly counts: { readonly exported: number; readonly rejected: number };
  readonly statistics: Readonly<Record<string, number | null>>;
  readonly files: readonly MailManifestFile[];
  readonly divisions?: readonly MailManifestDivision[] | undefined;
  readonly changes?:
    { readonly added: number; readonly removed: number; readonly changed: number } | null | undefined;
}

/** The format a file is in, by its name; undefined for a file of no export format (row hashes). */
export function formatOfFile(name: string): ExportFormat | undefined {
  if (/\.xlsx$/i.test(name)) return 'xlsx';
  if (/\.csv(\.gz)?$/i.test(name)) return 'csv';
  if (/\.parquet$/i.test(name)) return 'parquet';
  return undefined;
}

/** The files of one message: a division's own (split export), or every file of the export. */
export function filesOfMessage(
  manifest: Pick<MailManifest, 'files'>,
  divisionId: number | null,
  attach: readonly ExportFormat[],
): MailManifestFile[] {
  return manifest.files.filter((file) => {
    const format = formatOfFile(file.name);
    if (format === undefined || !attach.includes(format)) return false;
    return divisionId === null || file.division_id === divisionId;
  });
}

/** How a file reaches the reader: attached, a presigned URL, or its path on the export's server. */
export type FileDelivery =
  | { readonly kind: 'attached'; readonly file: MailManifestFile }
  | { readonly kind: 'url'; readonly file: MailManifestFile; readonly url: string; readonly reason: string }
  | { readonly kind: 'path'; readonly file: MailManifestFile; readonly path: string; readonly reason: string }
  | { readonly kind: 'missing'; readonly file: MailManifestFile; readonly reason: string };

/** Whether a file is attached (at most `maxBytes`) or must go as a link or path. */
export function isAttachable(file: MailManifestFile, maxBytes: number): boolean {
  return file.bytes <= maxBytes;
}

export function tooLargeReason(maxBytes: number): string {
  return `larger than the ${sizeText(maxBytes)} attachment limit (SMTP_MAX_ATTACHMENT_MB)`;
}

export interface MessageContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface MessageFacts {
  readonly definition: string;
  readonly manifest: MailManifest;
  /** The division of the message; null for the whole export's. */
  readonly division:
    MailManifestDivision | { readonly division_id: number; readonly division_name: string } | null;
  readonly files: readonly FileDelivery[];
}

const n = (value: number): string => value.toLocaleString('en-US');

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function periodText(period: MailManifest['period']): string {
  return period.from === period.to ? period.from : `${period.from} to ${period.to}`;
}

/** The figures a reader looks for first: label and value, in order. */
function headline(facts: MessageFacts): [string, string][] {
  const d = facts.division;
  const figures: [string, string][] = [];
  if (d === null) {
    const s = facts.manifest.statistics;
    figures.push(['Shifts', n(facts.manifest.counts.exported)]);
    if (typeof s['hours'] === 'number') figures.push(['Hours', n(Math.round(s['hours']))]);
    figures.push(['Start match rate', percent(s['start_match_rate'])]);
    figures.push(['Finish match rate', percent(s['finish_match_rate'])]);
    if (facts.manifest.counts.rejected > 0)
      figures.push(['Rows rejected', n(facts.manifest.counts.rejected)]);
    return figures;
  }
  if ('shifts' in d) {
    figures.push(['Shifts', n(d.shifts)]);
    const s = d.statistics;
    if (s !== undefined) {
      if (typeof s['hours'] === 'number') figures.push(['Hours', n(Math.round(s['hours']))]);
      figures.push(['Start match rate', percent(s['start_match_rate'])]);
      figures.push(['Finish match rate', percent(s['finish_match_rate'])]);
    }
  }
  return figures;
}

function divisionLabel(d: NonNullable<MessageFacts['division']>): string {
  return `${displayName(d.division_name) ?? 'Division'} (${d.division_id})`;
}

/** One line per file: what it is and where it is, in plain text. */
function fileLine(f: FileDelivery): string {
  const what = `${f.file.name} (${sizeText(f.file.bytes)}, ${n(f.file.rows)} rows)`;
  switch (f.kind) {
    case 'attached':
      return `- ${what}: attached`;
    case 'url':
      return `- ${what}: not attached, ${f.reason}. Download: ${f.url}`;
    case 'path':
      return `- ${what}: not attached, ${f.reason}. On the export's server: ${f.path}`;
    case 'missing':
      return `- ${what}: not attached, ${f.reason}`;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fileCell(f: FileDelivery): string {
  const what = `${escapeHtml(f.file.name)} <span style="color:#666666">(${escapeHtml(sizeText(f.file.bytes))}, ${escapeHtml(n(f.file.rows))} rows)</span>`;
  switch (f.kind) {
    case 'attached':
      return `${what}: attached`;
    case 'url':
      return `${what}: not attached, ${escapeHtml(f.reason)}. <a href="${escapeHtml(f.url)}">Download</a>`;
    case 'path':
      return `${what}: not attached, ${escapeHtml(f.reason)}. On the export's server: <code>${escapeHtml(f.path)}</code>`;
    case 'missing':
      return `${what}: not attached, ${escapeHtml(f.reason)}`;
  }
}

/** Subject, plain text and HTML of one message. No value of the upstream's reaches them unescaped. */
export function composeMessage(facts: MessageFacts): MessageContent {
  const period = periodText(facts.manifest.period);
  const where = facts.division === null ? 'all divisions' : divisionLabel(facts.division);
  const figures = headline(facts);
  const shifts = figures.find(([label]) => label === 'Shifts')?.[1];
  const start = figures.find(([label]) => label === 'Start match rate')?.[1];
  const summary = [
    shifts === undefined ? undefined : `${shifts} shifts`,
    start === undefined ? undefined : `start match ${start}`,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  const subject = `${facts.definition}: ${where}, ${period}${summary === '' ? '' : ` (${summary})`}`;
  const title = `${facts.definition}: ${period}`;
  const text = [
    title,
    `Division: ${where}`,
    '',
    ...figures.map(([label, value]) => `${label}: ${value}`),
    '',
    facts.files.length === 0 ? 'No files in the formats this report attaches.' : 'Files:',
    ...facts.files.map(fileLine),
    '',
    `Export ${facts.manifest.export_id}, sent by shift-export.`,
    '',
  ].join('\n');
  const cell = 'style="padding:4px 12px 4px 0;font-family:Arial,sans-serif;font-size:14px"';
  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><title>',
    escapeHtml(title),
    '</title></head><body>',
    '<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">',
    `<tr><td colspan="2" style="padding:0 0 8px 0;font-family:Arial,sans-serif;font-size:18px;font-weight:bold">${escapeHtml(title)}</td></tr>`,
    `<tr><td ${cell}>Division</td><td ${cell}>${escapeHtml(where)}</td></tr>`,
    ...figures.map(
      ([label, value]) =>
        `<tr><td ${cell}>${escapeHtml(label)}</td><td ${cell}><b>${escapeHtml(value)}</b></td></tr>`,
    ),
    `<tr><td colspan="2" style="padding:12px 0 4px 0;font-family:Arial,sans-serif;font-size:14px;font-weight:bold">${facts.files.length === 0 ? 'No files in the formats this report attaches.' : 'Files'}</td></tr>`,
    ...facts.files.map((f) => `<tr><td colspan="2" ${cell}>${fileCell(f)}</td></tr>`),
    `<tr><td colspan="2" style="padding:12px 0 0 0;font-family:Arial,sans-serif;font-size:12px;color:#666666">Export ${escapeHtml(facts.manifest.export_id)}, sent by shift-export.</td></tr>`,
    '</table></body></html>',
    '',
  ].join('\n');
  return { subject, text, html };
}
