// The character rule of spreadsheet-safe-text.ts applied to a placed shift's free-text fields, in
// place, by the validate stage: every file of the export then holds the same text, and the row is
// flagged text_replaced. user_org_level (one of four words) and the date-times (matched against
// their pattern) cannot hold such a character and are not checked.

import type { FinishedShift } from 'wfm-contract/finished-shift';
import { isSpreadsheetSafe, spreadsheetSafeText } from '../domain/spreadsheet-safe-text.js';

/** The shift's texts that come as the upstream sent them: names, addresses, the comment. */
export const FREE_TEXT_FIELDS = [
  'user_login',
  'user_position',
  'user_display_name',
  'division_name',
  'region_name',
  'shop_sap',
  'shop_locality',
  'shop_address',
  'comment',
] as const satisfies readonly (keyof FinishedShift)[];

type FreeTextField = (typeof FREE_TEXT_FIELDS)[number];

function safe(text: string | null): boolean {
  return text === null || isSpreadsheetSafe(text);
}

/** Replaces the characters a spreadsheet cannot hold in `shift`'s texts; true when any was. */
export function makeTextFieldsSpreadsheetSafe(shift: FinishedShift): boolean {
  // One check per field, written out: this runs for every row (a loop over the names costs a
  // keyed lookup per field).
  if (
    safe(shift.user_login) &&
    safe(shift.user_position) &&
    safe(shift.user_display_name) &&
    safe(shift.division_name) &&
    safe(shift.region_name) &&
    safe(shift.shop_sap) &&
    safe(shift.shop_locality) &&
    safe(shift.shop_address) &&
    safe(shift.comment)
  ) {
    return false;
  }
  const fields = shift as Record<FreeTextField, string | null>;
  for (const field of FREE_TEXT_FIELDS) {
    const text = fields[field];
    if (text !== null) fields[field] = spreadsheetSafeText(text);
  }
  return true;
}
