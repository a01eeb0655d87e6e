// The columns of shifts.csv and of the workbook's Shifts sheet, in contract order.

import type { Column } from './column.js';
import type { ShiftRecord } from './shift-record.js';
import { roundedRatio } from './decimal.js';

/** What one end of a shift reads from the row: a plain property read each (see locationColumns). */
interface LocationValues {
  readonly lat: (r: ShiftRecord) => number | null;
  readonly lon: (r: ShiftRecord) => number | null;
  readonly distance: (r: ShiftRecord) => number | null;
  readonly match: (r: ShiftRecord) => boolean | null;
}

// Written out rather than `r.shift[`${end}_location_lat`]`: that key was built anew for every cell,
// and the lookup by a fresh string cost more than the rest of the cell (docs/performance.md).
const LOCATION_VALUES: Readonly<Record<'start' | 'finish', LocationValues>> = {
  start: {
    lat: (r) => r.shift.start_location_lat,
    lon: (r) => r.shift.start_location_lon,
    distance: (r) => r.shift.start_location_distance,
    match: (r) => r.shift.start_location_match,
  },
  finish: {
    lat: (r) => r.shift.finish_location_lat,
    lon: (r) => r.shift.finish_location_lon,
    distance: (r) => r.shift.finish_location_distance,
    match: (r) => r.shift.finish_location_match,
  },
};

/**
 * The four location columns of one end of a shift: start and finish have the same columns, named
 * and described alike (`start_location_lat` … `finish_location_match`).
 */
function locationColumns(end: 'start' | 'finish'): Column<ShiftRecord>[] {
  const End = end === 'start' ? 'Start' : 'Finish';
  const values = LOCATION_VALUES[end];
  return [
    {
      name: `${end}_location_lat`,
      header: `${End} latitude`,
      kind: 'number',
      width: 11,
      description: `Latitude at the ${end}.`,
      value: values.lat,
    },
    {
      name: `${end}_location_lon`,
      header: `${End} longitude`,
      kind: 'number',
      width: 11,
      description: `Longitude at the ${end}.`,
      value: values.lon,
    },
    {
      name: `${end}_location_distance`,
      header: `${End} distance`,
      kind: 'integer',
      width: 9,
      description: `Distance between user and shop at the ${end}. The source states no unit.`,
      value: values.distance,
    },
    {
      name: `${end}_location_match`,
      header: `${End} match`,
      kind: 'boolean',
      width: 8,
      description: `True when the ${end} distance does not exceed the permitted value.`,
      value: values.match,
    },
  ];
}

export const SHIFT_COLUMNS: readonly Column<ShiftRecord>[] = [
  {
    name: 'shift_id',
    header: 'Shift ID',
    kind: 'integer',
    width: 10,
    description: 'Shift identifier (id).',
    value: (r) => r.shift.id,
  },
  {
    name: 'business_date',
    header: 'Business date',
    kind: 'date',
    width: 12,
    description: 'Local date of the start: the date the shift counts for.',
    value: (r) => r.businessDay,
  },
  {
    name: 'user_id',
    header: 'User ID',
    kind: 'integer',
    width: 9,
    description: 'User who worked the shift.',
    value: (r) => r.shift.user_id,
  },
  {
    name: 'user_login',
    header: 'Login',
    kind: 'text',
    width: 34,
    description: 'Login of the user.',
    value: (r) => r.shift.user_login,
  },
  {
    name: 'user_display_name',
    header: 'User',
    kind: 'text',
    width: 26,
    description: 'Given name and surname, or the login.',
    value: (r) => r.shift.user_display_name,
  },
  {
    name: 'user_position',
    header: 'Position',
    kind: 'text',
    width: 26,
    description: 'Position of the user.',
    value: (r) => r.shift.user_position,
  },
  {
    name: 'user_org_level',
    header: 'Org level',
    kind: 'text',
    width: 10,
    description: 'COMPANY, DIVISION, REGION or SHOP.',
    value: (r) => r.shift.user_org_level,
  },
  {
    name: 'division_id',
    header: 'Division ID',
    kind: 'integer',
    width: 10,
    description: 'Division of the shop.',
    value: (r) => r.shift.division_id,
  },
  {
    name: 'division_external_id',
    header: 'Division external ID',
    kind: 'text',
    width: 14,
    description: 'externalId of the division, from the division list.',
    value: (r) => r.divisionExternalId,
  },
  {
    name: 'division_name',
    header: 'Division',
    kind: 'text',
    width: 26,
    description: 'Name of the division.',
    value: (r) => r.shift.division_name,
  },
  {
    name: 'division_managers',
    header: 'Division managers',
    kind: 'text',
    width: 48,
    description: 'Division managers as "First Last <login>", joined by "; ".',
    value: (r) => r.divisionManagers,
  },
  {
    name: 'region_id',
    header: 'Region ID',
    kind: 'integer',
    width: 9,
    description: 'Region of the shop.',
    value: (r) => r.shift.region_id,
  },
  {
    name: 'region_name',
    header: 'Region',
    kind: 'text',
    width: 24,
    description: 'Name of the region.',
    value: (r) => r.shift.region_name,
  },
  {
    name: 'shop_id',
    header: 'Shop ID',
    kind: 'integer',
    width: 9,
    description: 'Shop of the shift.',
    value: (r) => r.shift.shop_id,
  },
  {
    name: 'shop_sap',
    header: 'Shop SAP',
    kind: 'text',
    width: 10,
    description: 'Shop number (text: leading zeros kept).',
    value: (r) => r.shift.shop_sap,
  },
  {
    name: 'shop_locality',
    header: 'Shop',
    kind: 'text',
    width: 30,
    description: 'Shop name.',
    value: (r) => r.shift.shop_locality,
  },
  {
    name: 'shop_address',
    header: 'Shop address',
    kind: 'text',
    width: 48,
    description: 'Shop address.',
    value: (r) => r.shift.shop_address,
  },
  {
    name: 'start_local',
    header: 'Start (local)',
    kind: 'localDateTime',
    width: 19,
    description: "Start in the shop's local time: start_time + start_time_offset.",
    value: (r) => r.startLocal,
  },
  {
    name: 'start_utc_offset',
    header: 'Start UTC offset',
    kind: 'offset',
    width: 9,
    description: 'start_time_offset as ±HH:MM.',
    value: (r) => r.shift.start_time_offset,
  },
  {
    name: 'finish_local',
    header: 'Finish (local)',
    kind: 'localDateTime',
    width: 19,
    description: 'Finish in local time: finish_time + finish_time_offset.',
    value: (r) => r.finishLocal,
  },
  {
    name: 'finish_utc_offset',
    header: 'Finish UTC offset',
    kind: 'offset',
    width: 9,
    description: 'finish_time_offset as ±HH:MM.',
    value: (r) => r.shift.finish_time_offset,
  },
  {
    name: 'start_utc',
    header: 'Start (UTC)',
    kind: 'utcDateTime',
    width: 19,
    description: 'start_time as sent (UTC), fraction of a second dropped.',
    value: (r) => r.startUtc,
  },
  {
    name: 'finish_utc',
    header: 'Finish (UTC)',
    kind: 'utcDateTime',
    width: 19,
    description: 'finish_time as sent (UTC), fraction of a second dropped.',
    value: (r) => r.finishUtc,
  },
  {
    name: 'duration_seconds',
    header: 'Duration',
    kind: 'duration',
    width: 9,
    description: 'duration as sent, in seconds (the workbook shows it as [h]:mm).',
    value: (r) => r.shift.duration,
  },
  {
    name: 'duration_hours',
    header: 'Duration (hours)',
    kind: 'decimal',
    places: 2,
    width: 9,
    description: 'duration in hours, 2 decimals.',
    value: (r) => roundedRatio(r.shift.duration, 3600, 2),
  },
  ...locationColumns('start'),
  ...locationColumns('finish'),
  {
    name: 'location_status',
    header: 'Location status',
    kind: 'text',
    width: 12,
    description:
      'both_match, start_only, finish_only, neither (both false), incomplete (one flag null) or no_location (both null).',
    value: (r) => r.locationStatus,
  },
  {
    name: 'auto_finished',
    header: 'Auto-finished',
    kind: 'boolean',
    width: 8,
    description: 'True when the shift was finished automatically.',
    value: (r) => r.shift.auto_finished,
  },
  {
    name: 'comment',
    header: 'Comment',
    kind: 'text',
    width: 48,
    wrap: true,
    description: 'Comment of the user, exactly as sent.',
    value: (r) => r.shift.comment,
  },
  {
    name: 'quality_flags',
    header: 'Quality flags',
    kind: 'text',
    width: 18,
    description:
      'Anomalies of an exported row, joined by ";": duration_mismatch, location_out_of_range, invalid_<field>, invalid_utf8, text_replaced.',
    value: (r) => r.qualityFlags,
  },
];
