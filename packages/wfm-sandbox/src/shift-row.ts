// One generated report row, as a reusable mutable record: the generator fills it in place (no
// allocation per row), filters read its columns by name, and the JSON encoder writes it from the
// raw parts kept beside the columns (indexes of precomputed fragments, whole seconds, coordinates
// in millionths of a degree). The two LocalDateTime columns are built only when read.

import { formatDateTime } from 'wfm-contract/civil-time';
import {
  FINISHED_SHIFT_FIELDS,
  type FinishedShift,
  type FinishedShiftField,
  type OrgLevel,
} from 'wfm-contract/finished-shift';

export class ShiftRow {
  id = 0;
  user_id = 0;
  user_login = '';
  user_org_level: OrgLevel = 'SHOP';
  user_position: string | null = null;
  user_display_name = '';
  division_id = 0;
  division_name = '';
  region_id = 0;
  region_name = '';
  shop_id = 0;
  shop_sap = '';
  shop_locality: string | null = null;
  shop_address: string | null = null;
  start_time_offset = 0;
  finish_time_offset = 0;
  duration = 0;
  comment: string | null = null;
  start_location_lat: number | null = null;
  start_location_lon: number | null = null;
  start_location_distance: number | null = null;
  start_location_match: boolean | null = null;
  finish_location_lat: number | null = null;
  finish_location_lon: number | null = null;
  finish_location_distance: number | null = null;
  finish_location_match: boolean | null = null;
  auto_finished = false;

  /** Whole UTC epoch seconds of the start and the finish. */
  startSecond = 0;
  finishSecond = 0;
  /** Fraction of a second written after the time: `digits` digits of `value` (0 digits: none). */
  startFractionDigits = 0;
  startFraction = 0;
  finishFractionDigits = 0;
  finishFraction = 0;
  /** Coordinates in millionths of a degree (meaningful when the matching column is not null). */
  startLatE6 = 0;
  startLonE6 = 0;
  finishLatE6 = 0;
  finishLonE6 = 0;
  /** Indexes of the precomputed JSON fragments; commentIndex -1 is a null comment. */
  userIndex = 0;
  shopIndex = 0;
  commentIndex = -1;

  get start_time(): string {
    return localDateTimeText(this.startSecond, this.startFractionDigits, this.startFraction);
  }

  get finish_time(): string {
    return localDateTimeText(this.finishSecond, this.finishFractionDigits, this.finishFraction);
  }
}

export function localDateTimeText(seconds: number, fractionDigits: number, fraction: number): string {
  const text = formatDateTime(seconds, 'T');
  return fractionDigits === 0 ? text : `${text}.${String(fraction).padStart(fractionDigits, '0')}`;
}

export type ShiftColumn = FinishedShiftField;

/** A plain object copy in the spec's member order (for invalid variants, `select` and tests). */
export function toFinishedShift(row: ShiftRow): FinishedShift {
  const out: Record<string, unknown> = {};
  for (const column of FINISHED_SHIFT_FIELDS) out[column] = row[column];
  return out as FinishedShift;
}
