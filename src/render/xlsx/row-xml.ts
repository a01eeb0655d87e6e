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
// test/render/xlsx/row-xml.test.ts holds whole workbooks written this way equal, part for part and
// cell for cell, to the same rows (through the XML gate) written through exceljs's own API; a
// future exceljs that renders rows differently fails there.

import { spreadsheetSafeText, SUSPECT } from '../../domain/spreadsheet-safe-text.js';
import type { StyleRegistry } from './exceljs-adapter.js';
import type { SharedTextIds } from './shared-texts.js';
import { columnLetters, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';

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

/** The last style and type a column's cell had, and what its cells then write after the row number. */
interface CellHead {
  readonly style: CellStyle;
  readonly type: number;
  readonly styleId: number;
  /** The s attribute and VALUE_OPEN of the type: what follows `<c` in a cell without a reference. */
  readonly afterRef: string;
  /** `"` closing the reference, then afterRef. */
  readonly refEnd: string;
  /** afterRef and refEnd of a text given as its index in the shared-strings table. */
  readonly sharedAfterRef: string;
  readonly sharedRefEnd: string;
}

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

/**
 * An index as a cell holds it, made once: a Shifts row holds a dozen, and numbers to text were a
 * tenth of its rendering (2026-11-29 profile). As many as the shared-strings table has texts, which
 * it bounds (SHARED_TEXT_LIMITS).
 */
const indexTexts: string[] = [];
function indexText(index: number): string {
  let text = indexTexts[index];
  if (text === undefined) {
    text = String(index);
    indexTexts[index] = text;
  }
  return text;
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
    if (!hasValues(values)) return '';
    // The row's style before its cells': the order in which exceljs registers them.
    const rowStyle = this.rowStyle();
    const ref = String(rowNumber);
    let xml = `<row r="${ref}"${rowStyle === 0 ? '' : ` s="${rowStyle}" customFormat="1"`}>`;
    // The column of the last cell written: a cell right after it needs no reference. The first
    // cell of a row always names its own, as some readers (exceljs's) place a cell without one
    // only after a cell they have placed.
    let written = -2;
    for (let i = 0; i < values.length; i++) {
      const place = this.sharedPlace[i] ?? -1;
      const known = place >= 0 && textIds !== undefined ? (textIds[at + place] as number) : -1;
      const value = known >= 0 ? '' : (values[i] ?? null);
      const type = known >= 0 ? STRING_TYPE : cellTypeOf(value);
      const head = this.head(i, value === null ? undefined : styles[i], type);
      if (value === null && head.styleId === 0) continue;
      const sharedId =
        known >= 0
          ? known
          : textIds === undefined && place >= 0 && typeof value === 'string'
            ? (this.shared?.ids.idOf(value) ?? -1)
            : -1;
      if (sharedId >= 0) {
        xml += i === written + 1 ? `<c${head.sharedAfterRef}` : this.open(i) + ref + head.sharedRefEnd;
        xml += `${indexText(sharedId)}</v></c>`;
        written = i;
        continue;
      }
      xml += i === written + 1 ? `<c${head.afterRef}` : this.open(i) + ref + head.refEnd;
      written = i;
      if (value === null) continue;
      switch (typeof value) {
        case 'number':
          xml += `${value}</v></c>`;
          continue;
        case 'string':
          xml += xmlText(value) + '</v></c>';
          continue;
        case 'boolean':
          xml += value ? '1</v></c>' : '0</v></c>';
          continue;
        default:
          break;
      }
      for (const run of value.richText) {
        // Whether to preserve white space is read on the gated text, as exceljs would get it.
        const text = spreadsheetSafeText(run.text);
        const space = NEEDS_PRESERVE.test(text) ? ' xml:space="preserve"' : '';
        xml += `<r><t${space}>${xmlText(text)}</t></r>`;
      }
      xml += '</is></c>';
    }
    return xml + '</row>';
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
      afterRef,
      refEnd: `"${afterRef}`,
      sharedAfterRef,
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

function hasValues(values: readonly XlsxValue[]): boolean {
  for (const value of values) if (value !== null) return true;
  return false;
}
