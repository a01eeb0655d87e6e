// manifest.json: what one export holds, written last so that its presence means the export is
// complete. The zod schema is the contract for writers and readers (the API, the next export of the
// same period); every object in it is strict, so nothing unplanned — a token above all — can be
// slipped into the file. Keys are snake_case like the counts and statistics the issue names.
// The statistics are built from the summary column declarations, so their names and rounding are
// those of the summary_by_*.csv files and never drift.

import { z } from 'zod';
import type { Column } from '../domain/column.js';
import { parseDay } from 'wfm-contract/civil-time';
import { roundedRatio } from '../domain/decimal.js';
import type {
  DivisionSummary,
  GroupStats,
  RegionSummary,
  ShopSummary,
  UserSummary,
} from '../domain/summary.js';
import {
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../domain/summary-columns.js';
import { ShiftExportError } from '../errors.js';
import { TOOL_NAME } from '../version.js';
import { REPORT_LANGUAGES } from '../i18n/report-language.js';

/** manifest.json is missing a member, has one too many, or is not JSON at all. */
export class ManifestError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    super('MANIFEST_INVALID', message, { cause });
  }
}

const allSummaryTables: readonly (readonly Column<never>[])[] = [
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
];

/**
 * The statistic columns, in file order: those every summary table has (the group keys differ
 * between tables, the statistics are the same).
 */
export const STATISTIC_COLUMNS: readonly Column<UserSummary>[] = USER_SUMMARY_COLUMNS.filter((c) =>
  allSummaryTables.every((table) => table.some((other) => other.name === c.name)),
);

function statisticSchema(column: Column<UserSummary>): z.ZodType<number | null> {
  switch (column.kind) {
    case 'integer':
      return z.number().int().nonnegative();
    case 'decimal':
    case 'rate':
      // Rates are empty (null) when their denominator is 0, distances when there are none. No sign
      // check: distances are the source's numbers, and a manifest must not fail an export over them.
      return z.number().nullable();
    default:
      throw new Error(
        `summary column ${column.name} has kind ${column.kind}, which the manifest cannot hold`,
      );
  }
}

const statisticsSchema = z.strictObject(
  Object.fromEntries(STATISTIC_COLUMNS.map((c) => [c.name, statisticSchema(c)])),
);

export type ManifestStatistics = Readonly<Record<string, number | null>>;

/** The overall statistics as the manifest holds them: summary column name -> value. */
export function manifestStatistics(overall: GroupStats): ManifestStatistics {
  // The statistic columns read only `stats`; the keys of this summary are never looked at.
  const row: UserSummary = { userId: 0, userLogin: '', userDisplayName: '', stats: overall };
  const out: Record<string, number | null> = {};
  for (const column of STATISTIC_COLUMNS) {
    const value = column.value(row);
    if (value !== null && typeof value !== 'number') {
      throw new Error(`summary column ${column.name} gave a ${typeof value}, not a number`);
    }
    out[column.name] = value;
  }
  return out;
}

const count = z.number().int().nonnegative();
const day = z.string().refine((text) => parseDay(text) !== undefined, 'expected a real date as YYYY-MM-DD');
/** ISO 8601 with a zone, e.g. 2026-11-21T06:00:00.000Z. */
const timestamp = z.iso.datetime({ offset: true });
const id = z.string().min(1);

const baseUrl = z.url({ protocol: /^https?$/ }).refine((text) => {
  const url = new URL(text);
  return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
}, 'expected a base URL without credentials, query or fragment (no secret goes into the manifest)');

export const manifestFileSchema = z.strictObject({
  /** The file's name, e.g. `shifts.csv`. */
  name: z.string().min(1),
  /** Where it is, relative to the export's folder (or prefix). */
  path: z.string().min(1),
  bytes: count,
  /** Lower-case hex SHA-256 of the file's bytes. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
  /** Data rows (header rows not counted). */
  rows: count,
  /** MIME type, e.g. `text/csv; charset=utf-8`. */
  content_type: z.string().min(1),
  /** How the bytes are encoded over content_type: `gzip` for a `.csv.gz`; absent when not. */
  content_encoding: z.literal('gzip').optional(),
  /** In an export split by division: the division whose rows the file holds; absent for the others. */
  division_id: z.number().int().optional(),
  /**
   * A workbook's language (BCP 47: en, ru, de, pt-BR): the language of its sheet names, headers
   * and labels. Only on .xlsx files; their cells, and every other file, are the same in each.
   */
  lang: z.enum(REPORT_LANGUAGES).optional(),
});

// The period at a glance, as a reader's mail shows it and the next period's mail compares with:
// the start and finish match rates of a division's regions (or of the export's divisions) and the
// few shops with the lowest start match rate. Written from the summaries the export computed
// anyway, so the mail never reads the upstream a second time, and bounded: a division's regions
// (the upstream's organisation, tens at most) and LOWEST_SHOPS shops.

/** How many shops with the lowest start match rate the manifest keeps (per division, or for the export). */
export const LOWEST_SHOPS = 5;

/** A share from 0 to 1 rounded as the summary files round it; null when nothing was checked. */
const share = z.number().min(0).max(1).nullable();

/** A region of a division, or a division of the export, with its shifts and match rates. */
const groupRates = {
  shifts: count,
  start_match_rate: share,
  finish_match_rate: share,
};

export const manifestRegionRateSchema = z.strictObject({
  region_id: z.number().int(),
  region_name: z.string(),
  ...groupRates,
});

export const manifestDivisionRateSchema = z.strictObject({
  division_id: z.number().int(),
  division_name: z.string(),
  ...groupRates,
});

/** A shop among the lowest start match rates: only shops where a start was checked are ranked. */
export const manifestShopRateSchema = z.strictObject({
  shop_id: z.number().int(),
  shop_sap: z.string(),
  shop_name: z.string().nullable(),
  region_name: z.string(),
  shifts: count,
  start_match_rate: z.number().min(0).max(1),
});

export type ManifestRegionRate = z.infer<typeof manifestRegionRateSchema>;
export type ManifestDivisionRate = z.infer<typeof manifestDivisionRateSchema>;
export type ManifestShopRate = z.infer<typeof manifestShopRateSchema>;

const startRate = (stats: GroupStats): number | null =>
  roundedRatio(stats.startMatched, stats.startChecked, 4);
const finishRate = (stats: GroupStats): number | null =>
  roundedRatio(stats.finishMatched, stats.finishChecked, 4);

/** The regions' rates, in the summaries' order (by name); a reader's mail ranks them itself. */
export function regionRates(regions: readonly RegionSummary[]): ManifestRegionRate[] {
  return regions.map((r) => ({
    region_id: r.regionId,
    region_name: r.regionName,
    shifts: r.stats.shifts,
    start_match_rate: startRate(r.stats),
    finish_match_rate: finishRate(r.stats),
  }));
}

/** The divisions' rates, in the summaries' order (by name). */
export function divisionRates(divisions: readonly DivisionSummary[]): ManifestDivisionRate[] {
  return divisions.map((d) => ({
    division_id: d.divisionId,
    division_name: d.divisionName,
    shifts: d.stats.shifts,
    start_match_rate: startRate(d.stats),
    finish_match_rate: finishRate(d.stats),
  }));
}

/**
 * The `count` shops with the lowest start match rate, lowest first; among equal rates the shop with
 * more shifts first (its rate says more), then by id. One pass over shops that may be read back
 * from temp files, keeping `count` at a time.
 */
export function lowestShops(shops: Iterable<ShopSummary>, count: number = LOWEST_SHOPS): ManifestShopRate[] {
  const kept: ManifestShopRate[] = [];
  const before = (a: ManifestShopRate, b: ManifestShopRate): boolean =>
    a.start_match_rate !== b.start_match_rate
      ? a.start_match_rate < b.start_match_rate
      : a.shifts !== b.shifts
        ? a.shifts > b.shifts
        : a.shop_id < b.shop_id;
  for (const shop of shops) {
    const rate = startRate(shop.stats);
    if (rate === null) continue;
    const entry: ManifestShopRate = {
      shop_id: shop.shopId,
      shop_sap: shop.shopSap,
      shop_name: shop.shopLocality,
      region_name: shop.regionName,
      shifts: shop.stats.shifts,
      start_match_rate: rate,
    };
    const last = kept[kept.length - 1];
    if (kept.length === count && last !== undefined && !before(entry, last)) continue;
    let at = kept.length;
    while (at > 0 && before(entry, kept[at - 1] as ManifestShopRate)) at--;
    kept.splice(at, 0, entry);
    if (kept.length > count) kept.pop();
  }
  return kept;
}

/** A division of an export split by division: one with at least one exported shift. */
export const manifestDivisionSchema = z.strictObject({
  division_id: z.number().int(),
  division_name: z.string(),
  /** Its exported shifts. */
  shifts: count,
  /**
   * Its rows changed since the previous export of the same dest and period (its own row-hashes.bin
   * compared with the previous one's); true when there was none (the first export, or the division
   * had no rows then); null when that could not be told.
   */
  changed: z.boolean().nullable(),
  /** Its statistics, as the export's `statistics` (absent in manifests of older releases). */
  statistics: statisticsSchema.optional(),
  /** Its regions' shifts and match rates (absent in manifests of older releases). */
  region_rates: z.array(manifestRegionRateSchema).optional(),
  /** Its LOWEST_SHOPS shops with the lowest start match rate (absent in manifests of older releases). */
  lowest_shops: z.array(manifestShopRateSchema).max(LOWEST_SHOPS).optional(),
});

/**
 * Why `changes` is null. `row_hashes_not_written`: this export's row fingerprints could not be
 * taken (its temp folder full or unwritable...), so it has no row-hashes.bin and the next export
 * cannot count against it either. The others: the previous export's manifest could not be read,
 * it lists no row-hashes.bin, that file is damaged, cannot be read or is not the one listed, or
 * it was written by an older release whose row hashes cannot be compared (`SXRH0001`).
 */
export const CHANGES_UNAVAILABLE_REASONS = [
  'row_hashes_not_written',
  'previous_manifest_unreadable',
  'previous_row_hashes_missing',
  'previous_row_hashes_unreadable',
  'previous_row_hashes_format',
] as const;
export type ChangesUnavailableReason = (typeof CHANGES_UNAVAILABLE_REASONS)[number];

/** Longest `changes_unavailable.message` kept (an error's text can be long). */
export const CHANGES_MESSAGE_MAX = 500;

/** `changes` is null exactly when `changes_unavailable` says why. */
export function changesAreExplained(m: { changes?: unknown; changes_unavailable?: unknown }): boolean {
  return (m.changes === null) === (m.changes_unavailable !== undefined);
}
export const CHANGES_EXPLAINED = {
  message: 'changes is null exactly when changes_unavailable says why',
  path: ['changes_unavailable'],
};

/** The members without the check across them, for schemas that pick some (the job's result). */
export const manifestMembers = z.strictObject({
  export_id: id,
  period: z
    .strictObject({ from: day, to: day })
    .refine((p) => p.from <= p.to, { message: 'from is after to', path: ['to'] }),
  generated_at: timestamp,
  tool: z.strictObject({ name: z.literal(TOOL_NAME), version: z.string().min(1) }),
  source: z.strictObject({ base_url: baseUrl }),
  counts: z.strictObject({
    fetched: count,
    exported: count,
    rejected: count,
    duplicates: count,
    outside_window: count,
    flagged: count,
    /** Rows outside the export's filter; absent when the export has no filter. */
    filtered_out: count.optional(),
  }),
  statistics: statisticsSchema,
  files: z.array(manifestFileSchema),
  /** Present in an export split by division: its divisions, by id; their files are under divisions/<division_id>/. */
  divisions: z.array(manifestDivisionSchema).optional(),
  /** Every division's shifts and match rates (absent in manifests of older releases). */
  division_rates: z.array(manifestDivisionRateSchema).optional(),
  /** The export's LOWEST_SHOPS shops with the lowest start match rate (absent in older manifests). */
  lowest_shops: z.array(manifestShopRateSchema).max(LOWEST_SHOPS).optional(),
  /** XLSX_MATCH_RATE_THRESHOLD when the export ran: below it a start match rate is highlighted. */
  match_rate_threshold: z.number().min(0).max(1).optional(),
  /** The export of the same period this one replaced, when there was one. */
  previous: z.strictObject({ export_id: id, generated_at: timestamp }).optional(),
  /**
   * Rows changed since the previous export of the same period. Absent when there is nothing to
   * count against (the first export of the period); null
   * when they could not be counted, with `changes_unavailable` saying why.
   */
  changes: z
    .strictObject({ previous_export_id: id, added: count, removed: count, changed: count })
    .nullable()
    .optional(),
  changes_unavailable: z
    .strictObject({
      reason: z.enum(CHANGES_UNAVAILABLE_REASONS),
      message: z.string().min(1).max(CHANGES_MESSAGE_MAX),
    })
    .optional(),
});

export const manifestSchema = manifestMembers.refine(changesAreExplained, CHANGES_EXPLAINED);

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof manifestFileSchema>;
export type ManifestDivision = z.infer<typeof manifestDivisionSchema>;

function checked(value: unknown, what: string): Manifest {
  const result = manifestSchema.safeParse(value);
  if (!result.success) throw new ManifestError(`${what}: ${z.prettifyError(result.error)}`, result.error);
  return result.data;
}

/**
 * manifest.json's text: pretty JSON with keys in schema order (statistics in column order),
 * whatever order the object was built in, and a trailing newline.
 */
export function renderManifest(manifest: Manifest): string {
  return `${JSON.stringify(checked(manifest, 'the manifest to write is invalid'), null, 2)}\n`;
}

/** Reads manifest.json's text back; throws ManifestError when it is not a manifest. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`manifest.json is not JSON: ${(error as Error).message}`, error);
  }
  return checked(value, 'manifest.json is invalid');
}
