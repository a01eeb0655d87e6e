// The Shifts sheet's data rows as SpreadsheetML, apart from the workbook: for an export thread
// (export/sheet-rows-work.ts), which has no workbook and so no style table of its own. It is given
// the style ids the workbook's Shifts sheet has registered so far (ShiftStyleIds); rows that would
// need one not registered yet cannot be rendered here and are rendered by the workbook itself,
// which registers it in the order exceljs would. A column's style is registered at its first value, so
// this happens in the first batches of a sheet, and then no more.

import { SHIFT_COLUMNS } from '../../domain/shift-columns.js';
import type { ShiftRecord } from '../../domain/shift-record.js';
import type { StyleRegistry } from './exceljs-adapter.js';
import { RowXmlRenderer, type KnownStyleIds } from './row-xml.js';
import { NO_SHARED_TEXTS, SHARED_TEXT_COLUMN_NAMES, type SharedTextIds } from './shared-texts.js';
import { cellStyleOf, xlsxValue, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';

/** The style of each Shifts column's cells, shared by every row (see xlsx-cells.ts for why). */
export const SHIFT_STYLES: readonly XlsxStyle[] = SHIFT_COLUMNS.map((column) => cellStyleOf(column));

/**
 * The Shifts columns whose texts are shared (shared-texts.ts), in SHIFT_COLUMNS' order: the order a
 * row's cells are written in, which is the order the export's thread gives a cut's texts their
 * indices in.
 */
export const SHARED_TEXT_SHIFT_COLUMNS = SHIFT_COLUMNS.filter((column) =>
  (SHARED_TEXT_COLUMN_NAMES as readonly string[]).includes(column.name),
);
if (SHARED_TEXT_SHIFT_COLUMNS.length !== SHARED_TEXT_COLUMN_NAMES.length)
  throw new Error('a shared text column is not a Shifts column');

/** Per Shifts column: true when its texts go into the shared-strings table. */
export const SHIFT_SHARED_TEXT_COLUMNS: readonly boolean[] = SHIFT_COLUMNS.map((column) =>
  SHARED_TEXT_SHIFT_COLUMNS.includes(column),
);

/**
 * A record's texts of SHARED_TEXT_SHIFT_COLUMNS, as their cells hold them (null: no text cell, or
 * one that is not a plain string): the keys its cut labels them by (cut-work.ts).
 */
export function sharedTextOf(record: ShiftRecord, index: number): string | null {
  const column = SHARED_TEXT_SHIFT_COLUMNS[index];
  if (column === undefined) return null;
  const value = xlsxValue(column.kind, column.value(record));
  return typeof value === 'string' ? value : null;
}

/** A Shifts row's cell values. */
export function shiftRowValues(record: ShiftRecord): XlsxValue[] {
  return SHIFT_COLUMNS.map((column) => xlsxValue(column.kind, column.value(record)));
}

/** Per Shifts column, its place among SHARED_TEXT_SHIFT_COLUMNS; -1 when its texts are not shared. */
const SHARED_PLACE: readonly number[] = SHIFT_COLUMNS.map((column) =>
  SHARED_TEXT_SHIFT_COLUMNS.indexOf(column),
);

/**
 * A Shifts row's cell values into `values`, but for the shared texts that `textIds` gives an index
 * from `at` (RowXmlRenderer.render reads that index, not the value: '' stands in for it).
 */
function shiftRowValuesInto(record: ShiftRecord, values: XlsxValue[], textIds: Int32Array, at: number): void {
  for (let i = 0; i < SHIFT_COLUMNS.length; i++) {
    const place = SHARED_PLACE[i] as number;
    if (place >= 0 && (textIds[at + place] as number) >= 0) values[i] = '';
    else {
      const column = SHIFT_COLUMNS[i] as (typeof SHIFT_COLUMNS)[number];
      values[i] = xlsxValue(column.kind, column.value(record));
    }
  }
}

/**
 * The shared-strings indices of rows' shared texts, SHARED_TEXT_SHIFT_COLUMNS.length a row, in the
 * order the rows are written: an index, or -1 for a text written inline (or none).
 */
export type RowTextIds = Int32Array;

/** KnownStyleIds of the Shifts sheet in a form that crosses threads: style objects by column. */
export interface ShiftStyleIds {
  /** Per column of SHIFT_COLUMNS, the id of its style; null: not registered yet. */
  readonly columns: readonly (number | null)[];
  readonly unstyled: readonly (readonly [type: number, id: number])[];
  readonly row: number | null;
}

export function shiftStyleIds(known: KnownStyleIds): ShiftStyleIds {
  return {
    columns: SHIFT_STYLES.map((style) => known.styleIds.get(style) ?? null),
    unstyled: [...known.unstyledIds],
    row: known.rowStyleId ?? null,
  };
}

function knownStyleIds(ids: ShiftStyleIds): KnownStyleIds {
  const styleIds = new Map<XlsxStyle, number>();
  ids.columns.forEach((id, i) => {
    const style = SHIFT_STYLES[i];
    if (id !== null && style !== undefined) styleIds.set(style, id);
  });
  return { styleIds, unstyledIds: new Map(ids.unstyled), rowStyleId: ids.row ?? undefined };
}

/** Asked for a style id the workbook has not registered yet. */
class UnregisteredStyle extends Error {}

const NO_NEW_STYLES: StyleRegistry = {
  addStyleModel: () => {
    throw new UnregisteredStyle();
  },
};

/**
 * Where rows' buffers come from, and where one goes that is let go (export/spare-buffers.ts): the
 * buffers of rows the export's thread has written come back to the thread that rendered them, so
 * that rows are not written into fresh pages every time.
 */
export interface RowBuffers {
  take(bytes: number): ArrayBuffer;
  give(buffer: ArrayBuffer): void;
}

/** A fresh buffer each time (not from Node's shared pool: it can be moved to another thread). */
export const FRESH_ROW_BUFFERS: RowBuffers = {
  take: (bytes) => Buffer.allocUnsafeSlow(bytes).buffer as ArrayBuffer,
  give: () => undefined,
};

/**
 * The bytes a row took in the last rows rendered on this thread, which sizes the next rows' buffer
 * (with a quarter to spare): the buffer is moved to the export's thread as it is, where its whole
 * length counts against the export's memory, so it is sized to what rows take, not the most they could.
 */
let bytesPerRow = 1024;

/**
 * The rows of `records` numbered from `firstRow`, as the Shifts sheet would write them, UTF-8
 * encoded, their shared texts as `texts` indexes them (by text, or row by row); undefined when
 * one of them needs a style id that `ids` does not have. The bytes start a buffer taken from
 * `buffers`, never Node's shared pool, so that they can be moved to another thread.
 */
export function renderShiftRowsXml(
  records: readonly ShiftRecord[],
  firstRow: number,
  ids: ShiftStyleIds,
  texts: SharedTextIds | RowTextIds,
  buffers: RowBuffers = FRESH_ROW_BUFFERS,
): Buffer | undefined {
  const rowTexts = texts instanceof Int32Array ? texts : undefined;
  const renderer = new RowXmlRenderer(NO_NEW_STYLES, knownStyleIds(ids), {
    columns: SHIFT_SHARED_TEXT_COLUMNS,
    ids: rowTexts === undefined ? (texts as SharedTextIds) : NO_SHARED_TEXTS,
  });
  const values: XlsxValue[] = [];
  const stride = SHARED_TEXT_SHIFT_COLUMNS.length;
  let asked = 1024 + Math.ceil(records.length * bytesPerRow * 1.25);
  let bytes = Buffer.from(buffers.take(asked));
  let used = 0;
  try {
    for (let k = 0; k < records.length; k++) {
      const record = records[k] as ShiftRecord;
      const row = firstRow + k;
      const rowValues = rowTexts === undefined ? shiftRowValues(record) : values;
      if (rowTexts !== undefined) shiftRowValuesInto(record, values, rowTexts, k * stride);
      let end = renderer.renderInto(bytes, used, row, rowValues, SHIFT_STYLES, rowTexts, k * stride);
      while (end < 0) {
        asked = bytes.length * 2;
        const larger = Buffer.from(buffers.take(asked));
        bytes.copy(larger, 0, 0, used);
        buffers.give(bytes.buffer as ArrayBuffer);
        bytes = larger;
        end = renderer.renderInto(bytes, used, row, rowValues, SHIFT_STYLES, rowTexts, k * stride);
      }
      used = end;
    }
  } catch (error) {
    buffers.give(bytes.buffer as ArrayBuffer);
    if (error instanceof UnregisteredStyle) return undefined;
    throw error;
  }
  if (records.length > 0) bytesPerRow = used / records.length;
  // Asked for over four times what the rows took (sized by far wider rows before): copied, and
  // the buffer kept for later rows; moved as it is, its whole length would count where it goes.
  // A spare larger than asked is moved as it is: the spares are few, and come back.
  if (used * 4 < asked) {
    const exact = Buffer.allocUnsafeSlow(used);
    bytes.copy(exact, 0, 0, used);
    buffers.give(bytes.buffer as ArrayBuffer);
    return exact;
  }
  return bytes.subarray(0, used);
}
