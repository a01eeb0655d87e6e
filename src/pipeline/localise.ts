// The localise stage: from a validated shift and its whole UTC seconds to the ShiftRecord the
// renderers read — local wall clocks, business date and location status. Integer arithmetic on the
// parsed fields only (src/domain/civil-time.ts): never Date, never the machine's time zone, so the
// output is the same under TZ=UTC and TZ=Asia/Kathmandu.

import { dayOfSeconds } from '../domain/civil-time.js';
import type { FinishedShift } from '../domain/finished-shift.js';
import { locationStatusOf, type ShiftRecord } from '../domain/shift-record.js';

/** The local wall clock, as epoch seconds read as UTC, of a UTC instant at an offset in minutes. */
export function localSeconds(utcSeconds: number, offsetMinutes: number): number {
  return utcSeconds + offsetMinutes * 60;
}

/**
 * Builds the one ShiftRecord of a row (the validate stage calls this once the row is placeable).
 * `startUtc` / `finishUtc` are whole seconds, the fraction already dropped by the parser.
 */
export function localiseShift(
  shift: FinishedShift,
  startUtc: number,
  finishUtc: number,
  qualityFlags: string,
): ShiftRecord {
  const startLocal = startUtc + shift.start_time_offset * 60;
  // One object literal with a fixed member order: every record shares one hidden class.
  return {
    shift,
    startUtc,
    finishUtc,
    startLocal,
    finishLocal: finishUtc + shift.finish_time_offset * 60,
    businessDay: dayOfSeconds(startLocal),
    locationStatus: locationStatusOf(shift.start_location_match, shift.finish_location_match),
    qualityFlags,
    divisionExternalId: null,
    divisionManagers: null,
  };
}
