// The one rule for characters a spreadsheet cannot hold. The pipeline applies it to every upstream
// text before anything is written (so shifts.csv, the summaries and the workbook tell the same
// story), and the workbook's XML gate (render/xlsx/xml-safe-text.ts) applies it again to every
// string that reaches an XML part, whatever its origin.
//
// A character cannot be held when XML 1.0 does not allow it — Char is #x9 | #xA | #xD |
// [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF], which leaves out the C0 controls other
// than tab, LF and CR, unpaired surrogates, U+FFFE and U+FFFF: one of them makes a sheet's XML
// not well-formed, and readers refuse the file (openpyxl) or silently stop at it (LibreOffice).
// DEL (U+007F) is allowed by XML, but exceljs, which writes most of the workbook, drops it without
// a trace; it is treated as unholdable too, so no character ever vanishes from one file only.
// Each unholdable character (each unpaired surrogate code unit) becomes U+FFFD, which a reader
// sees. C1 controls (U+0080-U+009F) and the other noncharacters (U+FDD0…, U+1FFFE…) are XML 1.0
// Chars that both files keep as sent.

/** What an unholdable character becomes: visible, so the analyst sees that something was there. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

// Everything that might need replacing, as one class without the u flag (the fast test, run on
// every upstream text, and folded into row-xml.ts's one test): a hit on a surrogate is usually
// half of a well-formed pair (an emoji), which the exact rule below then keeps.
// eslint-disable-next-line no-control-regex
export const SUSPECT = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\uD800-\uDFFF\uFFFE\uFFFF]/;
// The exact rule: with the u flag a well-formed pair is one code point in the last range, and an
// unpaired surrogate is a code point of its own, outside every range.
const UNHOLDABLE = /[^\t\n\r\x20-\x7E\x80-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const UNHOLDABLE_ALL = /[^\t\n\r\x20-\x7E\x80-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** True when a spreadsheet (XML 1.0, and exceljs) can hold every character of `text`. */
export function isSpreadsheetSafe(text: string): boolean {
  return !SUSPECT.test(text) || !UNHOLDABLE.test(text);
}

/** `text` with each character a spreadsheet cannot hold replaced by U+FFFD; `text` itself when none. */
export function spreadsheetSafeText(text: string): string {
  return isSpreadsheetSafe(text) ? text : text.replace(UNHOLDABLE_ALL, REPLACEMENT_CHARACTER);
}
