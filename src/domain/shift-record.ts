// One exported shift: the validated upstream row plus what the pipeline derived from it. Built once
// per row by the validate/localise stages and completed in place by enrich (no per-row spreads:
// they cost more than all the stages together).

import type { FinishedShift } from './finished-shift.js';

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

export interface ShiftRecord {
  readonly shift: FinishedShift;
  /** Epoch seconds of start_time / finish_time (UTC), fraction dropped. */
  readonly startUtc: number;
  readonly finishUtc: number;
  /** The local wall clock as epoch seconds read as UTC: startUtc + start_time_offset * 60. */
  readonly startLocal: number;
  readonly finishLocal: number;
  /** Day number (days since 1970-01-01) of startLocal: the shift's business date. */
  readonly businessDay: number;
  readonly locationStatus: LocationStatus;
  /** Quality flag names, `;`-joined; '' when the row is clean. Enrich may add text_replaced. */
  qualityFlags: string;
  /** Filled by the enrich stage from the division metadata; null when unknown. */
  divisionExternalId: string | null;
  divisionManagers: string | null;
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
