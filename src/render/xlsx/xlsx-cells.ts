// How a declared column becomes workbook cells: the number format of each kind, the value a cell
// holds, and the column width. One style object per column and role, shared by every cell of that
// column: exceljs caches styles by object identity, so a fresh object per cell would cost about
// half of the writer's time (docs/performance.md).

import type { CellValue, Column, ColumnKind } from '../../domain/column.js';
import { formatOffset, SECONDS_PER_DAY } from 'wfm-contract/civil-time';

/** Text that must keep its surrounding white space: written as an inline string (see below). */
export interface PreservedText {
  readonly richText: readonly [{ readonly text: string }];
}

/** What a data cell holds: text, number (dates and times as serial day numbers), boolean or nothing. */
export type XlsxValue = string | PreservedText | number | boolean | null;

/**
 * exceljs writes a plain string as `<c t="str"><v>…</v>`, and Excel and LibreOffice trim leading
 * and trailing white space of `<v>` when they read it (a comment " late " showed as "late", a
 * leading tab vanished). A one-run rich text is written as an inline string whose `<t>` carries
 * xml:space="preserve", so those few cells keep exactly what the source sent.
 */
function textCell(text: string): string | PreservedText {
  return hasEdgeWhiteSpace(text) ? { richText: [{ text }] } : text;
}

/**
 * What `/^\s|\s$/.test(text)` says, without the regular expression: asked of every text cell, twice
 * on a Shifts row, where the regex cost an export thread 3% of its time (2026-11-29 profile).
 */
export function hasEdgeWhiteSpace(text: string): boolean {
  return (
    text.length > 0 && (isWhiteSpace(text.charCodeAt(0)) || isWhiteSpace(text.charCodeAt(text.length - 1)))
  );
}

/** ECMAScript's \s: WhiteSpace (tab, VT, FF, space, NBSP, BOM, the Zs category) and LineTerminator. */
function isWhiteSpace(code: number): boolean {
  if (code < 0x7f) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Excel refuses (and "repairs") cells holding more characters than this. */
export const EXCEL_MAX_CELL_TEXT = 32_767;

const TRUNCATION_MARK = '… [truncated]';

/**
 * Dates and date-times in the built-in formats 14 and 22, which carry no format code: Excel and
 * LibreOffice show them in the reader's own date order (31.03.2024 in a German or Russian
 * spreadsheet, 3/31/2024 in an American one). A written code such as yyyy-mm-dd would show the
 * same to everyone. The strings are exceljs's names for the two (lib/xlsx/defaultnumformats.js):
 * given them, it writes numFmtId 14 and 22 and no <numFmt> of its own. Format 22 shows a time to
 * the minute; the cell keeps the seconds (docs/analysts.md, "Dates and times").
 */
export const DATE_TIME_FORMAT = 'm/d/yy "h":mm';
export const DATE_FORMAT = 'mm-dd-yy';
export const DURATION_FORMAT = '[h]:mm';
/** Marks a cell as text, so that editing it in Excel keeps it text (leading zeros of SAP numbers). */
export const TEXT_FORMAT = '@';

type Argb = { readonly argb: string };
export type XlsxFont = Readonly<{ bold?: boolean; color?: Argb }>;
export type XlsxFill = Readonly<{ type: 'pattern'; pattern: 'solid'; fgColor: Argb }>;
type Alignment = Readonly<{ wrapText?: boolean; vertical?: 'top'; horizontal?: 'left' }>;
/** A cell style: what the workbook uses of SpreadsheetML's (colors are ARGB hex). */
export type XlsxStyle = Readonly<{
  numFmt?: string;
  font?: XlsxFont;
  fill?: XlsxFill;
  alignment?: Alignment;
}>;

export const BOLD_FONT: XlsxFont = { bold: true };
/** The light red Excel itself offers for "less than" highlights. */
export const HIGHLIGHT_FILL: XlsxFill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFC7CE' } };
export const HIGHLIGHT_FONT: XlsxFont = { color: { argb: 'FF9C0006' } };

function decimals(places: number): string {
  return places > 0 ? `0.${'0'.repeat(places)}` : '0';
}

/** The number format of a column, or undefined for General. */
export function numberFormatOf(column: Pick<Column<unknown>, 'kind' | 'places'>): string | undefined {
  switch (column.kind) {
    case 'text':
    case 'offset':
      return TEXT_FORMAT;
    case 'integer':
      // Not General: General turns long ids into 1.23457E+12 in a narrow column.
      return '0';
    case 'decimal':
      return decimals(column.places ?? 2);
    case 'rate':
      // A ratio with 4 places is a percentage with 2: 0.8123 shows as 81.23%.
      return `${decimals(Math.max(0, (column.places ?? 4) - 2))}%`;
    case 'number':
    case 'boolean':
      return undefined;
    case 'date':
      return DATE_FORMAT;
    case 'localDateTime':
    case 'utcDateTime':
      return DATE_TIME_FORMAT;
    case 'duration':
      return DURATION_FORMAT;
  }
}

/** The style every data cell of a column shares. */
export function cellStyleOf(column: Pick<Column<unknown>, 'kind' | 'places' | 'wrap'>): XlsxStyle {
  const numFmt = numberFormatOf(column);
  const style: XlsxStyle = numFmt === undefined ? {} : { numFmt };
  // Long free text wraps inside its column instead of spilling over its empty neighbours (on
  // screen harmless, in print it adds pages of comment tails).
  return column.wrap === true ? { ...style, alignment: { wrapText: true, vertical: 'top' } } : style;
}

/** The same cell style, bold (total rows). */
export function boldStyleOf(style: XlsxStyle): XlsxStyle {
  return { ...style, font: BOLD_FONT };
}

/** The same cell style, highlighted (a rate below the threshold). */
export function highlightStyleOf(style: XlsxStyle): XlsxStyle {
  return {
    ...style,
    fill: HIGHLIGHT_FILL,
    font: style.font?.bold ? { ...HIGHLIGHT_FONT, bold: true } : HIGHLIGHT_FONT,
  };
}

/** Text as Excel can hold it: at most 32,767 characters, never cutting a surrogate pair. */
export function cellText(text: string): string {
  if (text.length <= EXCEL_MAX_CELL_TEXT) return text;
  let end = EXCEL_MAX_CELL_TEXT - TRUNCATION_MARK.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + TRUNCATION_MARK;
}

function finiteOrNull(value: number): number | null {
  // exceljs would write NaN or Infinity verbatim into the XML, which Excel rejects.
  return Number.isFinite(value) ? value : null;
}

const MS_PER_DAY = 24 * 3600 * 1000;

/**
 * Excel's serial day number of wall-clock epoch seconds: exceljs's own formula for a Date (whose
 * getTime() would be seconds * 1000), so a date cell holds the same float as when exceljs wrote it.
 */
export function excelSerialOf(seconds: number): number {
  return 25569 + (seconds * 1000) / MS_PER_DAY;
}

/** The cell value of a declared value (times are wall-clock epoch seconds, dates day numbers). */
export function xlsxValue(kind: ColumnKind, value: CellValue): XlsxValue {
  if (value === null) return null;
  switch (kind) {
    case 'text': {
      // Always a string: exceljs then writes a text cell (never a formula, never a number), so
      // "=HYPERLINK(...)", "+1" and "007" are shown exactly as sent. An empty text is an empty cell
      // (Excel's "(Blanks)" filter then finds clean rows' quality flags).
      const text = typeof value === 'string' ? value : String(value);
      return text === '' ? null : textCell(cellText(text));
    }
    case 'integer':
    case 'decimal':
    case 'rate':
    case 'number':
      return typeof value === 'number' ? finiteOrNull(value) : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'number' ? excelSerialOf(value * SECONDS_PER_DAY) : null;
    case 'localDateTime':
    case 'utcDateTime':
      return typeof value === 'number' ? excelSerialOf(value) : null;
    case 'offset':
      return typeof value === 'number' ? formatOffset(value) : null;
    case 'duration':
      // Excel counts time in days; [h]:mm then shows hours past 24 (a 26-hour shift is 26:00).
      return typeof value === 'number' ? finiteOrNull(value / SECONDS_PER_DAY) : null;
  }
}

/** The narrowest width that shows any value of the kind without ##### (in character units). */
const MIN_WIDTH: Readonly<Record<ColumnKind, number>> = {
  text: 6,
  integer: 6,
  decimal: 7,
  rate: 8,
  number: 10,
  boolean: 7,
  date: 11,
  localDateTime: 20,
  utcDateTime: 20,
  offset: 7,
  duration: 8,
};

export const MAX_COLUMN_WIDTH = 80;

/**
 * The width of a column: the declared hint, widened so the bold header and its autofilter button
 * fit and so a date-time never shows as #####; `longest` (characters of the longest value, when the
 * sheet knows it) may widen it further, up to MAX_COLUMN_WIDTH.
 */
export function columnWidthOf(
  column: Pick<Column<unknown>, 'kind' | 'header' | 'width'>,
  longest = 0,
): number {
  const header = Math.ceil(column.header.length * 1.1) + 3;
  const content = Math.min(longest + 2, MAX_COLUMN_WIDTH);
  return Math.max(column.width, MIN_WIDTH[column.kind], header, content);
}

/** Column letters of 1-based column numbers: 1 → A, 27 → AA. */
export function columnLetters(column: number): string {
  let n = column;
  let letters = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}
