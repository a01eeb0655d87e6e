// The columns of the summary_by_*.csv files and of the workbook's "By …" sheets: the group's keys,
// then the same statistics for every grouping.

import type { Column } from './column.js';
import { roundedRatio } from './decimal.js';
import type { DivisionSummary, GroupStats, RegionSummary, ShopSummary, UserSummary } from './summary.js';

interface HasStats {
  readonly stats: GroupStats;
}

const rate = (n: number, d: number): number | null => roundedRatio(n, d, 4);

function statColumns<R extends HasStats>(): Column<R>[] {
  return [
    {
      name: 'shifts',
      header: 'Shifts',
      kind: 'integer',
      width: 8,
      description: 'Exported shifts in the group.',
      value: (r) => r.stats.shifts,
    },
    {
      name: 'hours',
      header: 'Hours',
      kind: 'decimal',
      places: 2,
      width: 9,
      description: 'Sum of durations, in hours, 2 decimals.',
      value: (r) => roundedRatio(r.stats.durationSeconds, 3600, 2),
    },
    {
      name: 'start_checked',
      header: 'Start checked',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose start_location_match is not null.',
      value: (r) => r.stats.startChecked,
    },
    {
      name: 'start_matched',
      header: 'Start matched',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose start_location_match is true.',
      value: (r) => r.stats.startMatched,
    },
    {
      name: 'start_match_rate',
      header: 'Start match rate',
      kind: 'rate',
      places: 4,
      width: 9,
      description: 'start_matched ÷ start_checked; empty when nothing was checked.',
      value: (r) => rate(r.stats.startMatched, r.stats.startChecked),
    },
    {
      name: 'finish_checked',
      header: 'Finish checked',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose finish_location_match is not null.',
      value: (r) => r.stats.finishChecked,
    },
    {
      name: 'finish_matched',
      header: 'Finish matched',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose finish_location_match is true.',
      value: (r) => r.stats.finishMatched,
    },
    {
      name: 'finish_match_rate',
      header: 'Finish match rate',
      kind: 'rate',
      places: 4,
      width: 9,
      description: 'finish_matched ÷ finish_checked; empty when nothing was checked.',
      value: (r) => rate(r.stats.finishMatched, r.stats.finishChecked),
    },
    {
      name: 'both_checked',
      header: 'Both checked',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose two match flags are both not null.',
      value: (r) => r.stats.bothChecked,
    },
    {
      name: 'both_matched',
      header: 'Both matched',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose two match flags are both true.',
      value: (r) => r.stats.bothMatched,
    },
    {
      name: 'both_match_rate',
      header: 'Both match rate',
      kind: 'rate',
      places: 4,
      width: 9,
      description: 'both_matched ÷ both_checked; empty when nothing was checked.',
      value: (r) => rate(r.stats.bothMatched, r.stats.bothChecked),
    },
    {
      name: 'no_location',
      header: 'No location',
      kind: 'integer',
      width: 8,
      description: 'Shifts whose two match flags are both null.',
      value: (r) => r.stats.noLocation,
    },
    {
      name: 'start_distance_median',
      header: 'Start distance median',
      kind: 'decimal',
      places: 2,
      width: 10,
      description: 'Excel MEDIAN of the non-null start distances (unit not stated by the source).',
      value: (r) => r.stats.startDistanceMedian,
    },
    {
      name: 'start_distance_p90',
      header: 'Start distance P90',
      kind: 'decimal',
      places: 2,
      width: 10,
      description: 'Excel PERCENTILE.INC(…; 0.9) of the non-null start distances.',
      value: (r) => r.stats.startDistanceP90,
    },
    {
      name: 'finish_distance_median',
      header: 'Finish distance median',
      kind: 'decimal',
      places: 2,
      width: 10,
      description: 'Excel MEDIAN of the non-null finish distances.',
      value: (r) => r.stats.finishDistanceMedian,
    },
    {
      name: 'finish_distance_p90',
      header: 'Finish distance P90',
      kind: 'decimal',
      places: 2,
      width: 10,
      description: 'Excel PERCENTILE.INC(…; 0.9) of the non-null finish distances.',
      value: (r) => r.stats.finishDistanceP90,
    },
    {
      name: 'auto_finished',
      header: 'Auto-finished',
      kind: 'integer',
      width: 8,
      description: 'Shifts finished automatically.',
      value: (r) => r.stats.autoFinished,
    },
    {
      name: 'auto_finished_rate',
      header: 'Auto-finished rate',
      kind: 'rate',
      places: 4,
      width: 9,
      description: 'auto_finished ÷ shifts.',
      value: (r) => rate(r.stats.autoFinished, r.stats.shifts),
    },
  ];
}

/** The name columns several summaries share: the row's field, and the column it becomes. */
const NAME_COLUMNS = {
  divisionName: { name: 'division_name', header: 'Division' },
  regionName: { name: 'region_name', header: 'Region' },
} as const;

/** A shared name column (the description says whose name it is). */
function nameColumn<K extends keyof typeof NAME_COLUMNS, R extends Readonly<Record<K, string>>>(
  field: K,
  description: string,
): Column<R> {
  return { ...NAME_COLUMNS[field], kind: 'text', width: 24, description, value: (r) => r[field] };
}

export const DIVISION_SUMMARY_COLUMNS: readonly Column<DivisionSummary>[] = [
  {
    name: 'division_id',
    header: 'Division ID',
    kind: 'integer',
    width: 10,
    description: 'Division identifier.',
    value: (r) => r.divisionId,
  },
  {
    name: 'division_external_id',
    header: 'Division external ID',
    kind: 'text',
    width: 14,
    description: 'externalId of the division.',
    value: (r) => r.divisionExternalId,
  },
  nameColumn('divisionName', 'Name of the division.'),
  ...statColumns<DivisionSummary>(),
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
  nameColumn('regionName', 'Name of the region.'),
  {
    name: 'division_id',
    header: 'Division ID',
    kind: 'integer',
    width: 10,
    description: 'Division of the region.',
    value: (r) => r.divisionId,
  },
  nameColumn('divisionName', 'Name of the division.'),
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
  nameColumn('regionName', 'Region of the shop.'),
  nameColumn('divisionName', 'Division of the shop.'),
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
