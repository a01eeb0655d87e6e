// The columns of the summary_by_*.csv files and of the workbook's "By …" sheets: the group's keys,
// then the same statistics for every grouping.

import type { CellValue, Column } from './column.js';
import { roundedRatio } from './decimal.js';
import type {
  DaySummary,
  DivisionSummary,
  GroupStats,
  RegionSummary,
  ShopSummary,
  UserSummary,
} from './summary.js';
import { ALL_DIVISIONS_LABEL } from './summary.js';

interface HasStats {
  readonly stats: GroupStats;
}

const rate = (n: number, d: number): number | null => roundedRatio(n, d, 4);

type CountStat = {
  [K in keyof GroupStats]: GroupStats[K] extends number ? K : never;
}[keyof GroupStats];
type DistanceStat = 'startDistanceMedian' | 'startDistanceP90' | 'finishDistanceMedian' | 'finishDistanceP90';

// Every grouping's statistics come in three shapes — a count, a ratio of two counts, a distance —
// each with one kind, precision and width: each shape is declared once, so no column can drift.
function statColumns<R extends HasStats>(): Column<R>[] {
  const count = (name: string, header: string, stat: CountStat, description: string): Column<R> => ({
    name,
    header,
    kind: 'integer',
    width: 8,
    description,
    value: (r) => r.stats[stat],
  });
  const ratio = (
    name: string,
    header: string,
    of: CountStat,
    over: CountStat,
    description: string,
  ): Column<R> => ({
    name,
    header,
    kind: 'rate',
    places: 4,
    width: 9,
    description,
    value: (r) => rate(r.stats[of], r.stats[over]),
  });
  const distance = (name: string, header: string, stat: DistanceStat, description: string): Column<R> => ({
    name,
    header,
    kind: 'decimal',
    places: 2,
    width: 10,
    description,
    value: (r) => r.stats[stat],
  });
  return [
    count('shifts', 'Shifts', 'shifts', 'Exported shifts in the group.'),
    {
      name: 'hours',
      header: 'Hours',
      kind: 'decimal',
      places: 2,
      width: 9,
      description: 'Sum of durations, in hours, 2 decimals.',
      value: (r) => roundedRatio(r.stats.durationSeconds, 3600, 2),
    },
    count('start_checked', 'Start checked', 'startChecked', 'Shifts whose start_location_match is not null.'),
    count('start_matched', 'Start matched', 'startMatched', 'Shifts whose start_location_match is true.'),
    ratio(
      'start_match_rate',
      'Start match rate',
      'startMatched',
      'startChecked',
      'start_matched ÷ start_checked; empty when nothing was checked.',
    ),
    count(
      'finish_checked',
      'Finish checked',
      'finishChecked',
      'Shifts whose finish_location_match is not null.',
    ),
    count('finish_matched', 'Finish matched', 'finishMatched', 'Shifts whose finish_location_match is true.'),
    ratio(
      'finish_match_rate',
      'Finish match rate',
      'finishMatched',
      'finishChecked',
      'finish_matched ÷ finish_checked; empty when nothing was checked.',
    ),
    count('both_checked', 'Both checked', 'bothChecked', 'Shifts whose two match flags are both not null.'),
    count('both_matched', 'Both matched', 'bothMatched', 'Shifts whose two match flags are both true.'),
    ratio(
      'both_match_rate',
      'Both match rate',
      'bothMatched',
      'bothChecked',
      'both_matched ÷ both_checked; empty when nothing was checked.',
    ),
    count('no_location', 'No location', 'noLocation', 'Shifts whose two match flags are both null.'),
    distance(
      'start_distance_median',
      'Start distance median',
      'startDistanceMedian',
      'Excel MEDIAN of the non-null start distances (unit not stated by the source).',
    ),
    distance(
      'start_distance_p90',
      'Start distance P90',
      'startDistanceP90',
      'Excel PERCENTILE.INC(…; 0.9) of the non-null start distances.',
    ),
    distance(
      'finish_distance_median',
      'Finish distance median',
      'finishDistanceMedian',
      'Excel MEDIAN of the non-null finish distances.',
    ),
    distance(
      'finish_distance_p90',
      'Finish distance P90',
      'finishDistanceP90',
      'Excel PERCENTILE.INC(…; 0.9) of the non-null finish distances.',
    ),
    count('auto_finished', 'Auto-finished', 'autoFinished', 'Shifts finished automatically.'),
    ratio('auto_finished_rate', 'Auto-finished rate', 'autoFinished', 'shifts', 'auto_finished ÷ shifts.'),
  ];
}

/** The columns several summaries share: the row's field, and the column it becomes. */
const SHARED_COLUMNS = {
  divisionId: { name: 'division_id', header: 'Division ID', kind: 'integer', width: 10 },
  divisionName: { name: 'division_name', header: 'Division', kind: 'text', width: 24 },
  regionName: { name: 'region_name', header: 'Region', kind: 'text', width: 24 },
} as const;

/** A shared column (the description says what it holds in this summary). */
function sharedColumn<K extends keyof typeof SHARED_COLUMNS, R extends Readonly<Record<K, CellValue>>>(
  field: K,
  description: string,
): Column<R> {
  return { ...SHARED_COLUMNS[field], description, value: (r) => r[field] };
}

export const DIVISION_SUMMARY_COLUMNS: readonly Column<DivisionSummary>[] = [
  sharedColumn('divisionId', 'Division identifier.'),
  {
    name: 'division_external_id',
    header: 'Division external ID',
    kind: 'text',
    width: 14,
    description: 'externalId of the division.',
    value: (r) => r.divisionExternalId,
  },
  sharedColumn('divisionName', 'Name of the division.'),
  ...statColumns<DivisionSummary>(),
];

export const DAY_SUMMARY_COLUMNS: readonly Column<DaySummary>[] = [
  {
    name: 'business_date',
    header: 'Business date',
    kind: 'date',
    width: 11,
    description: 'Business date of the shifts (as in shifts.csv).',
    value: (r) => r.businessDay,
  },
  sharedColumn('divisionId', 'Division identifier; empty on the row of all divisions of the day.'),
  sharedColumn(
    'divisionName',
    `Name of the division (as in summary_by_division.csv); "${ALL_DIVISIONS_LABEL}" on the row of the whole day.`,
  ),
  ...statColumns<DaySummary>(),
];

export const REGION_SUMMARY_COLUMNS: readonly Column<RegionSummary>[] = [
  {
    name: 'region_id',
    header: 'Region ID',
    kind: 'integer',
    width: 9,
    description: 'Region identifier.',
    value: (r) => r.regionId,
  },
  sharedColumn('regionName', 'Name of the region.'),
  sharedColumn('divisionId', 'Division of the region.'),
  sharedColumn('divisionName', 'Name of the division.'),
  ...statColumns<RegionSummary>(),
];

export const SHOP_SUMMARY_COLUMNS: readonly Column<ShopSummary>[] = [
  {
    name: 'shop_id',
    header: 'Shop ID',
    kind: 'integer',
    width: 9,
    description: 'Shop identifier.',
    value: (r) => r.shopId,
  },
  {
    name: 'shop_sap',
    header: 'Shop SAP',
    kind: 'text',
    width: 10,
    description: 'Shop number (text: leading zeros kept).',
    value: (r) => r.shopSap,
  },
  {
    name: 'shop_locality',
    header: 'Shop',
    kind: 'text',
    width: 24,
    description: 'Shop name.',
    value: (r) => r.shopLocality,
  },
  sharedColumn('regionName', 'Region of the shop.'),
  sharedColumn('divisionName', 'Division of the shop.'),
  ...statColumns<ShopSummary>(),
];

export const USER_SUMMARY_COLUMNS: readonly Column<UserSummary>[] = [
  {
    name: 'user_id',
    header: 'User ID',
    kind: 'integer',
    width: 9,
    description: 'User identifier.',
    value: (r) => r.userId,
  },
  {
    name: 'user_login',
    header: 'Login',
    kind: 'text',
    width: 24,
    description: 'Login of the user.',
    value: (r) => r.userLogin,
  },
  {
    name: 'user_display_name',
    header: 'User',
    kind: 'text',
    width: 24,
    description: 'Display name of the user.',
    value: (r) => r.userDisplayName,
  },
  ...statColumns<UserSummary>(),
];
