// One exported shift: the validated upstream row plus what the pipeline derived from it. One object
// a row, allocated by the validate stage in the record's whole shape (validShift) and completed in
// place by localise and enrich: a copy or spread per stage costs more than all the stages together.

import type { FinishedShift } from 'wfm-contract/finished-shift';

export const LOCATION_STATUSES = [
  'both_match',
  'start_only',
  'finish_only',
  'neither',
  'incomplete',
  'no_location',
] as const;
export type LocationStatus = (typeof LOCATION_STATUSES)[number];

export const QUALITY_FLAGS = {
  duration_mismatch: '|duration - (finish - start)| is more than 60 seconds',
  location_out_of_range: 'a latitude outside ±90 or a longitude outside ±180',
  'invalid_<field>': 'a nullable field sent with the wrong type, exported as null (e.g. invalid_comment)',
  invalid_utf8: "the row's bytes were not valid UTF-8; its text shows U+FFFD where they were",
  text_replaced:
    'a text had characters a spreadsheet cannot hold (controls, U+FFFE, U+FFFF, unpaired surrogates), each now U+FFFD',
} as const;

/** A row the validate stage accepted: the first fields of its record, before the localise stage. */
export interface ValidShift {
  readonly shift: FinishedShift;
  /** Epoch seconds of start_time / finish_time (UTC), fraction dropped. */
  readonly startUtc: number;
  readonly finishUtc: number;
  /** Quality flag names, `;`-joined; '' when the row is clean. Enrich may add text_replaced. */
  qualityFlags: string;
}

export interface ShiftRecord extends ValidShift {
  /** The local wall clock as epoch seconds read as UTC: startUtc + start_time_offset * 60. */
  readonly startLocal: number;
  readonly finishLocal: number;
  /** Day number (days since 1970-01-01) of startLocal: the shift's business date. */
  readonly businessDay: number;
  readonly locationStatus: LocationStatus;
  /** Filled by the enrich stage from the division metadata; null when unknown. */
  divisionExternalId: string | null;
  divisionManagers: string | null;
}

/**
 * The ValidShift of a row, allocated with every member of its ShiftRecord (one hidden class for all
 * records); the fields of the later stages hold placeholders until localise and enrich set them.
 */
export function validShift(
  shift: FinishedShift,
  startUtc: number,
  finishUtc: number,
  qualityFlags: string,
): ValidShift {
  const record: ShiftRecord = {
    shift,
    startUtc,
    finishUtc,
    startLocal: NaN,
    finishLocal: NaN,
    businessDay: NaN,
    locationStatus: 'no_location',
    qualityFlags,
    divisionExternalId: null,
    divisionManagers: null,
  };
  return record;
}

/** location_status from the two match flags (spec nullable booleans). */
export function locationStatusOf(start: boolean | null, finish: boolean | null): LocationStatus {
  if (start === null && finish === null) return 'no_location';
  if (start === null || finish === null) return 'incomplete';
  if (start && finish) return 'both_match';
  if (start) return 'start_only';
  if (finish) return 'finish_only';
  return 'neither';
}
