// A table row as SpreadsheetML text: the cells exceljs 4.4's streaming worksheet writes for
// `addRow(values)` + one style per cell + `commit()`, without building its Row, Cell and model
// objects for every cell, which cost more than the rest of the export together (docs/performance.md).
// The cells' styles are still registered in exceljs's style table, in the order exceljs would, so
// styles.xml comes out the same too.
//
// Fewer bytes than exceljs writes, as every byte of a sheet is rendered and then deflated: a row
// has no `spans` and no `x14ac:dyDescent` (both optional hints), and a cell names its reference
// (`r="AB4"`) when it is the row's first or does not follow the cell before it in its row; the
// others readers place after the cell before (ECMA-376 part 1, 18.3.1.4: r is optional; Excel,
// LibreOffice, openpyxl and exceljs read it so). A Shifts row went from 1.73 to about 1.4 KB, and
// from 348 to about 240 bytes deflated (docs/performance.md, "The sheet XML"). The Shifts sheet's
// repeated texts go into the shared-strings table instead (shared-texts.ts): `t="s"` and an index.
//
// A row is written as UTF-8 straight into its caller's buffer, numbers digit by digit where they
// can be (cell-bytes.ts), as the CSV records are: a string per row made of ~70 pieces, then
// flattened and encoded, cost an export thread more than the CSV records did (docs/performance.md).
//
// test/render/xlsx/row-xml.test.ts holds whole workbooks written this way equal, part for part and
// cell for cell, to the same rows (through the XML gate) written through exceljs's own API; a
// future exceljs that renders rows differently fails there.

import { spreadsheetSafeText, SUSPECT } from '../../domain/spreadsheet-safe-text.js';
import type { StyleRegistry } from './exceljs-adapter.js';
import type { SharedTextIds } from './shared-texts.js';
import { writeAscii, writeNumber, writeUtf8 } from '../cell-bytes.js';
import { columnLetters, type PreservedText, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';

/** exceljs's ValueType numbers (its enum; exceljs-adapter.test.ts checks them), without loading it. */
const NUMBER_TYPE = 2;
const STRING_TYPE = 3;
const RICH_TEXT_TYPE = 8;
const BOOLEAN_TYPE = 9;
const NULL_TYPE = 0;

export type CellStyle = XlsxStyle | undefined;

// What needs work before a text goes into a row: XML's five specials, or a character the XML gate
// (spreadsheetSafeText) may replace — the gate's own test, folded in so common text is scanned once.
const NEEDS_WORK = new RegExp(`[<>&'"]|${SUSPECT.source}`);
const XML_SPECIALS = /[<>&'"]/g;
const ENTITY: Readonly<Record<string, string>> = {
  '"': '&quot;',
  '&': '&amp;',
  "'": '&apos;',
  '<': '&lt;',
  '>': '&gt;',
};

/**
 * Text as a row's XML holds it: through the XML gate, then escaped exactly as exceljs's xmlEncode
 * escapes (which, after the gate, never meets a character it would drop).
 */
export function xmlText(text: string): string {
  return NEEDS_WORK.test(text)
    ? spreadsheetSafeText(text).replace(XML_SPECIALS, (c) => ENTITY[c] ?? '')
    : text;
}

/** exceljs writes xml:space="preserve" on an inline string's <t> under this condition. */
const NEEDS_PRESERVE = /^\s|\n|\s$/;

function cellTypeOf(value: XlsxValue): number {
  if (value === null) return NULL_TYPE;
  switch (typeof value) {
    case 'string':
      return STRING_TYPE;
    case 'number':
      return NUMBER_TYPE;
    case 'boolean':
      return BOOLEAN_TYPE;
    default:
      return RICH_TEXT_TYPE;
  }
}

/** What follows `<c r="A2"` for a cell type: the type attribute and the start of the value. */
const VALUE_OPEN: Readonly<Record<number, string>> = {
  [NULL_TYPE]: '/>',
  [NUMBER_TYPE]: '><v>',
  [STRING_TYPE]: ' t="str"><v>',
  [BOOLEAN_TYPE]: ' t="b"><v>',
  [RICH_TEXT_TYPE]: ' t="inlineStr"><is>',
};

/** The last style and type a column's cell had, and the markup its cells then start with. */
interface CellHead {
  readonly style: CellStyle;
  readonly type: number;
  readonly styleId: number;
  /** `<c`, the s attribute and VALUE_OPEN of the type: a cell without a reference. */
  readonly next: string;
  /** `"` closing the reference (`<c r="AB4`), then the s attribute and VALUE_OPEN. */
  readonly refEnd: string;
  /** next and refEnd of a text given as its index in the shared-strings table. */
  readonly sharedNext: string;
  readonly sharedRefEnd: string;
}

/** The end of a cell's value. */
const VALUE_CLOSE = '</v></c>';
const TRUE_CLOSE = '1</v></c>';
const FALSE_CLOSE = '0</v></c>';

/** Which columns' texts go into the shared-strings table, and the indices they have there. */
export interface SharedTextColumns {
  /** Per column: true when its texts are shared. */
  readonly columns: readonly boolean[];
  readonly ids: SharedTextIds;
}

/** The style ids a renderer has had from the style table so far. */
export interface KnownStyleIds {
  /** Per style object, as exceljs's WeakMap would answer (first cell type wins). */
  readonly styleIds: ReadonlyMap<XlsxStyle, number>;
  /** Of a cell without a style of its own, per cell type. */
  readonly unstyledIds: ReadonlyMap<number, number>;
  /** Of the row itself. */
  readonly rowStyleId: number | undefined;
}

export class RowXmlRenderer {
  /** `<c r="` and the column's letters, per column. */
  private readonly cellOpen: string[] = [];
  /** Per column, its place among the shared columns; -1 when its texts are not shared. */
  private readonly sharedPlace: Int32Array;
  private readonly heads: (CellHead | undefined)[] = [];
  private readonly styleIds: Map<XlsxStyle, number>;
  private readonly unstyledIds: Map<number, number>;
  private rowStyleId: number | undefined;

  /**
   * `known`: ids already registered, which the renderer then does not ask `styles` for again.
   * `shared`: columns whose texts are written as indices into the shared-strings table.
   */
  constructor(
    private readonly styles: StyleRegistry,
    known?: KnownStyleIds,
    private readonly shared?: SharedTextColumns,
  ) {
    this.styleIds = new Map(known?.styleIds);
    this.unstyledIds = new Map(known?.unstyledIds);
    this.rowStyleId = known?.rowStyleId;
    const columns = shared?.columns ?? [];
    this.sharedPlace = new Int32Array(columns.length).fill(-1);
    let place = 0;
    for (let i = 0; i < columns.length; i++) if (columns[i] === true) this.sharedPlace[i] = place++;
  }

  /** The ids asked of the style table so far. */
  known(): KnownStyleIds {
    return {
      styleIds: new Map(this.styleIds),
      unstyledIds: new Map(this.unstyledIds),
      rowStyleId: this.rowStyleId,
    };
  }

  /**
   * The <row> element of row `rowNumber`, or '' when every value is null (exceljs skips such rows;
   * the row number is used up all the same). `styles[i]` styles cell i; a null cell is unstyled.
   * `textIds`, when given, holds from `at` the shared-strings indices of the row's shared texts, one
   * per shared column in order (-1: the text is inline, or there is none): a cell whose index is
   * there is written from it, and its value is not read. Without it, the table is asked by text.
   */
  render(
    rowNumber: number,
    values: readonly XlsxValue[],
    styles: readonly CellStyle[],
    textIds?: Int32Array,
    at = 0,
  ): string {
    let bytes = Buffer.allocUnsafe(4096);
    let end = this.renderInto(bytes, 0, rowNumber, values, styles, textIds, at);
    while (end < 0) {
      bytes = Buffer.allocUnsafe(bytes.length * 4);
      end = this.renderInto(bytes, 0, rowNumber, values, styles, textIds, at);
    }
    return bytes.toString('utf8', 0, end);
  }

  /**
   * render()'s row as UTF-8 into `target` from `at`, with no string made for it: returns the offset
   * after it (`at` when there is no row), or -1 when it might not fit (the bytes past `at` are then
   * garbage; the same call with more room writes the same row). `textIds` are read from `idsAt`.
   */
  renderInto(
    target: Uint8Array,
    at: number,
    rowNumber: number,
    values: readonly XlsxValue[],
    styles: readonly CellStyle[],
    textIds?: Int32Array,
    idsAt = 0,
  ): number {
    if (!hasValues(values)) return at;
    // The row's style before its cells': the order in which exceljs registers them.
    const rowStyle = this.rowStyle();
    let i = writeAscii('<row r="', target, at);
    if (i >= 0) i = writeNumber(rowNumber, target, i);
    if (i >= 0) i = writeAscii(rowStyle === 0 ? '">' : `" s="${rowStyle}" customFormat="1">`, target, i);
    if (i < 0) return -1;
    // The column of the last cell written: a cell right after it needs no reference. The first
    // cell of a row always names its own, as some readers (exceljs's) place a cell without one
    // only after a cell they have placed.
    let written = -2;
    for (let c = 0; c < values.length; c++) {
      const place = this.sharedPlace[c] ?? -1;
      const known = place >= 0 && textIds !== undefined ? (textIds[idsAt + place] as number) : -1;
      const value = known >= 0 ? '' : (values[c] ?? null);
      const type = known >= 0 ? STRING_TYPE : cellTypeOf(value);
      const head = this.head(c, value === null ? undefined : styles[c], type);
      if (value === null && head.styleId === 0) continue;
      const sharedId =
        known >= 0
          ? known
          : textIds === undefined && place >= 0 && typeof value === 'string'
            ? (this.shared?.ids.idOf(value) ?? -1)
            : -1;
      const shared = sharedId >= 0;
      if (c === written + 1) i = writeAscii(shared ? head.sharedNext : head.next, target, i);
      else {
        i = writeAscii(this.open(c), target, i);
        if (i >= 0) i = writeNumber(rowNumber, target, i);
        if (i >= 0) i = writeAscii(shared ? head.sharedRefEnd : head.refEnd, target, i);
      }
      written = c;
      if (i < 0) return -1;
      if (shared) {
        i = writeNumber(sharedId, target, i);
        if (i >= 0) i = writeAscii(VALUE_CLOSE, target, i);
      } else if (value === null) continue;
      else if (typeof value === 'number') {
        i = writeNumber(value, target, i);
        if (i >= 0) i = writeAscii(VALUE_CLOSE, target, i);
      } else if (typeof value === 'string') {
        i = writeUtf8(xmlText(value), target, i);
        if (i >= 0) i = writeAscii(VALUE_CLOSE, target, i);
      } else if (typeof value === 'boolean') i = writeAscii(value ? TRUE_CLOSE : FALSE_CLOSE, target, i);
      else i = writeUtf8(inlineRuns(value), target, i);
      if (i < 0) return -1;
    }
    return writeAscii('</row>', target, i);
  }

  private open(index: number): string {
    let open = this.cellOpen[index];
    if (open === undefined) {
      open = `<c r="${columnLetters(index + 1)}`;
      this.cellOpen[index] = open;
    }
    return open;
  }

  // Columns keep their style and type from row to row: one comparison instead of a lookup per cell.
  private head(index: number, style: CellStyle, type: number): CellHead {
    const last = this.heads[index];
    if (last !== undefined && last.style === style && last.type === type) return last;
    const styleId = style === undefined ? this.unstyled(type) : this.styleIdOf(style, type);
    const styleAttribute = styleId === 0 ? '' : ` s="${styleId}"`;
    const afterRef = `${styleAttribute}${VALUE_OPEN[type] ?? ''}`;
    const sharedAfterRef = `${styleAttribute} t="s"><v>`;
    const head: CellHead = {
      style,
      type,
      styleId,
      next: `<c${afterRef}`,
      refEnd: `"${afterRef}`,
      sharedNext: `<c${sharedAfterRef}`,
      sharedRefEnd: `"${sharedAfterRef}`,
    };
    this.heads[index] = head;
    return head;
  }

  private styleIdOf(style: XlsxStyle, type: number): number {
    let id = this.styleIds.get(style);
    if (id === undefined) {
      id = this.styles.addStyleModel(style, type);
      this.styleIds.set(style, id);
    }
    return id;
  }

  // A cell without a style of its own gets a fresh empty style from exceljs; its id depends only on
  // the cell type, so it is asked once per type, at the first such cell, where exceljs first asks.
  private unstyled(type: number): number {
    let id = this.unstyledIds.get(type);
    if (id === undefined) {
      id = this.styles.addStyleModel({}, type);
      this.unstyledIds.set(type, id);
    }
    return id;
  }

  // Likewise the row's own (empty) style, asked by exceljs for every row with values.
  private rowStyle(): number {
    this.rowStyleId ??= this.styles.addStyleModel({});
    return this.rowStyleId;
  }
}

/** An inline string's runs, and the end of its cell (`<is>` is opened by VALUE_OPEN). */
function inlineRuns(value: PreservedText): string {
  let xml = '';
  for (const run of value.richText) {
    // Whether to preserve white space is read on the gated text, as exceljs would get it.
    const text = spreadsheetSafeText(run.text);
    const space = NEEDS_PRESERVE.test(text) ? ' xml:space="preserve"' : '';
    xml += `<r><t${space}>${xmlText(text)}</t></r>`;
  }
  return `${xml}</is></c>`;
}

function hasValues(values: readonly XlsxValue[]): boolean {
  for (const value of values) if (value !== null) return true;
  return false;
}
