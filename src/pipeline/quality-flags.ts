// The anomalies that do not stop a row from being exported but are named in its `quality_flags`
// column, in one fixed order: duration_mismatch, location_out_of_range, then invalid_<field> for
// each nullable field whose value had the wrong type (in NULLABLE_SHIFT_FIELDS order), then
// invalid_utf8 when the row's bytes were not valid UTF-8 (its text shows U+FFFD for them), then
// text_replaced (a character a spreadsheet cannot hold was replaced, see spreadsheet-safe-text.ts).

import { NULLABLE_SHIFT_FIELDS, type FinishedShift } from 'wfm-contract/finished-shift';

/** Largest accepted gap, in whole seconds, between `duration` and finish − start. */
export const DURATION_TOLERANCE_SECONDS = 60;

export type NullableShiftField = (typeof NULLABLE_SHIFT_FIELDS)[number];

/** A text of the row had characters a spreadsheet cannot hold, now U+FFFD. Last in the order. */
export const TEXT_REPLACED_FLAG = 'text_replaced';

/** `flags` with text_replaced added (the enrich stage adds it for division texts). */
export function withTextReplaced(flags: string): string {
  if (flags === '') return TEXT_REPLACED_FLAG;
  return flags.endsWith(TEXT_REPLACED_FLAG) ? flags : `${flags};${TEXT_REPLACED_FLAG}`;
}

/** The flag of a nullable field that was sent with a wrong type (and exported as null). */
export function invalidFieldFlag(field: NullableShiftField): string {
  return `invalid_${field}`;
}

function outOfRange(value: number | null, limit: number): boolean {
  return value !== null && (value > limit || value < -limit);
}

/** The flag of a row whose bytes were not valid UTF-8. */
export const INVALID_UTF8_FLAG = 'invalid_utf8';

/**
 * The `;`-joined flags of a placeable row; '' when it is clean. `invalidFields` lists the nullable
 * fields that had a wrong type, in any order (the output order is fixed); `textReplaced` says that
 * a text field had characters replaced.
 */
export function qualityFlagsOf(
  shift: FinishedShift,
  startUtc: number,
  finishUtc: number,
  invalidFields: readonly NullableShiftField[] | undefined,
  notUtf8 = false,
  textReplaced = false,
): string {
  let flags = '';
  if (Math.abs(shift.duration - (finishUtc - startUtc)) > DURATION_TOLERANCE_SECONDS) {
    flags = 'duration_mismatch';
  }
  if (
    outOfRange(shift.start_location_lat, 90) ||
    outOfRange(shift.start_location_lon, 180) ||
    outOfRange(shift.finish_location_lat, 90) ||
    outOfRange(shift.finish_location_lon, 180)
  ) {
    flags = flags === '' ? 'location_out_of_range' : `${flags};location_out_of_range`;
  }
  if (invalidFields !== undefined) {
    for (const field of NULLABLE_SHIFT_FIELDS) {
      if (invalidFields.includes(field)) {
        flags = flags === '' ? invalidFieldFlag(field) : `${flags};${invalidFieldFlag(field)}`;
      }
    }
  }
  if (notUtf8) flags = flags === '' ? INVALID_UTF8_FLAG : `${flags};${INVALID_UTF8_FLAG}`;
  return textReplaced ? withTextReplaced(flags) : flags;
}
