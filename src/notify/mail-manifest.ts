// The members of a published manifest that a delivery e-mail reads, and which of its files a
// message carries: a division's mail only the files its manifest entry marks with that division,
// attached up to SMTP_MAX_ATTACHMENT_MB, a link or a path beyond. Pure.

import type { ExportFormat } from '../domain/export-format.js';
import type { ManifestDivisionRate, ManifestRegionRate, ManifestShopRate } from '../render/manifest.js';

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
  /** A workbook's language (a division's workbook may be written in several); absent before languages. */
  readonly lang?: string | undefined;
}

/** A division of a split export, as its manifest lists it. */
export interface MailManifestDivision {
  readonly division_id: number;
  readonly division_name: string;
  readonly shifts: number;
  /** Against the previous export of the definition and period; null when unknown. */
  readonly changed: boolean | null;
  readonly statistics?: Readonly<Record<string, number | null>> | undefined;
  readonly region_rates?: readonly ManifestRegionRate[] | undefined;
  readonly lowest_shops?: readonly ManifestShopRate[] | undefined;
}

/** The members of a published manifest that delivery reads. */
export interface MailManifest {
  readonly export_id: string;
  readonly period: { readonly from: string; readonly to: string };
  readonly counts: { readonly exported: number; readonly rejected: number };
  readonly statistics: Readonly<Record<string, number | null>>;
  readonly files: readonly MailManifestFile[];
  readonly divisions?: readonly MailManifestDivision[] | undefined;
  readonly division_rates?: readonly ManifestDivisionRate[] | undefined;
  readonly lowest_shops?: readonly ManifestShopRate[] | undefined;
  readonly match_rate_threshold?: number | undefined;
  /** The export of the same period this one replaced, when there was one. */
  readonly previous?: { readonly export_id: string } | undefined;
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

/**
 * The files of one message: a division's own (split export), or every file of the export. Of a
 * division's workbooks in several languages, the message carries the one in its reader's `lang`,
 * else the one in the export's language (shifts.xlsx).
 */
export function filesOfMessage(
  manifest: Pick<MailManifest, 'files'>,
  divisionId: number | null,
  attach: readonly ExportFormat[],
  lang?: string,
): MailManifestFile[] {
  const files = manifest.files.filter((file) => {
    const format = formatOfFile(file.name);
    if (format === undefined || !attach.includes(format)) return false;
    return divisionId === null || file.division_id === divisionId;
  });
  const workbooks = files.filter((file) => formatOfFile(file.name) === 'xlsx' && file.lang !== undefined);
  if (divisionId === null || workbooks.length <= 1) return files;
  const own =
    workbooks.find((file) => file.lang === lang) ??
    workbooks.find((file) => file.name === PLAIN_WORKBOOK) ??
    workbooks[0];
  return files.filter((file) => !workbooks.includes(file) || file === own);
}

/** The name of the workbook in the export's own language (export/workbook-output.ts). */
const PLAIN_WORKBOOK = 'shifts.xlsx';

/**
 * How a file reaches the reader: attached, or, being larger than `limitBytes`
 * (SMTP_MAX_ATTACHMENT_MB), a presigned URL, its path on the export's server, or nothing when no
 * link could be made. The composer says why in the reader's language.
 */
export type FileDelivery =
  | { readonly kind: 'attached'; readonly file: MailManifestFile }
  | {
      readonly kind: 'url';
      readonly file: MailManifestFile;
      readonly url: string;
      readonly limitBytes: number;
    }
  | {
      readonly kind: 'path';
      readonly file: MailManifestFile;
      readonly path: string;
      readonly limitBytes: number;
    }
  | { readonly kind: 'missing'; readonly file: MailManifestFile; readonly limitBytes: number };

/** Whether a file is attached (at most `maxBytes`) or must go as a link or path. */
export function isAttachable(file: MailManifestFile, maxBytes: number): boolean {
  return file.bytes <= maxBytes;
}
