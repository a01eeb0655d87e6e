// The localise stage: from a validated shift and its whole UTC seconds to the ShiftRecord the
// renderers read — local wall clocks, business date and location status. Integer arithmetic on the
// parsed fields only (wfm-contract/civil-time): never Date, never the machine's time zone, so the
// output is the same under TZ=UTC and TZ=Asia/Kathmandu.

import { dayOfSeconds } from 'wfm-contract/civil-time';
import { locationStatusOf, type ShiftRecord, type ValidShift } from '../domain/shift-record.js';

/**
 * The ShiftRecord of a valid shift, its local fields set in place: validShift() allocated the
 * whole record (no second object a row). A local wall clock is epoch seconds read as UTC.
 */
export function localiseShift(valid: ValidShift): ShiftRecord {
  const record = valid as { -readonly [K in keyof ShiftRecord]: ShiftRecord[K] };
  const shift = valid.shift;
  const startLocal = valid.startUtc + shift.start_time_offset * 60;
  record.startLocal = startLocal;
  record.finishLocal = valid.finishUtc + shift.finish_time_offset * 60;
  record.businessDay = dayOfSeconds(startLocal);
  record.locationStatus = locationStatusOf(shift.start_location_match, shift.finish_location_match);
  return record;
}
