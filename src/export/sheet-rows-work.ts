// The Shifts sheet's rows of a worked cut (cut-work.ts), rendered on the export thread that parsed
// it, from the records that parse made: nothing is parsed twice. A sheet row's number, and which
// sheet it lands in, depend on the duplicates dropped before it, which only the export's thread
// knows, in report order. So the thread keeps a cut's admitted records after answering it, and
// renders them when the export's thread takes the cut in order and asks again (SheetRowsRequest):
// which of those records were exported, the row number of the first, the sheet's row limit, and
// the style ids the workbook has registered so far. Rows that would need a style not registered
// yet come back as their cell values instead, and the workbook writes them itself, registering
// the style in the order exceljs would (shift-rows-xml.ts): the bytes are the same whichever
// thread rendered what. Likewise the shared texts: the export's thread gives the cut's texts their
// indices in the shared-strings table in row order, and sends them with the request (textIds, per
// label of the cut); the thread kept each row's labels, and so each cell's index (shared-texts.ts).

import type { ShiftRecord } from '../domain/shift-record.js';
import type { CutWorkSetup } from './cut-work.js';
import {
  rowTextIds,
  SHARED_TEXT_COLUMN_NAMES,
  KnownTextIds,
  type SharedTextIds,
  type TextEntry,
} from '../render/xlsx/shared-texts.js';
import {
  FRESH_ROW_BUFFERS,
  renderShiftRowsXml,
  shiftRowValues,
  type RowBuffers,
  type RowTextIds,
  type ShiftStyleIds,
} from '../render/xlsx/shift-rows-xml.js';
import type { XlsxValue } from '../render/xlsx/xlsx-cells.js';

/** Where a cut's exported rows go in the Shifts sheets. */
export interface SheetPlace {
  /** Row number of the first, were the current sheet to have room (header row 1: data from 2). */
  readonly firstRow: number;
  /** Data rows a sheet holds: past it, rows continue on the next sheet from row 2. */
  readonly sheetRowLimit: number;
  readonly styles: ShiftStyleIds;
}

/**
 * Where a cut's exported rows go, and the indices of its shared texts, per label of the cut, in the
 * shared-strings table numbered `table` (the thread remembers them for that table: KnownTextIds).
 */
export interface SheetRowsPlace extends SheetPlace {
  readonly textIds: Int32Array;
  readonly table: number;
}

/** Which of a cut's kept records to render, as the export's thread asks for them. */
export interface SheetRowsRequest extends SheetRowsPlace {
  /** The cut, numbered as it was sent to the thread. */
  readonly seq: number;
  /** Index among the cut's admitted records of keep[0]. */
  readonly from: number;
  /** Per admitted record from `from` on: 1 when it was exported (not a repeated id). */
  readonly keep: Uint8Array;
  /** No request for this cut follows: the thread lets its records go. */
  readonly last: boolean;
}

/**
 * The rendered rows: UTF-8 row XML, one piece per sheet (`pieceRows` rows each, ending at byte
 * `pieceEnds`; the first continues the current sheet, each later one starts a new sheet at row 2);
 * or, when a row needs a style not registered yet, every exported row's cell values, for the
 * workbook to write. The XML starts an ArrayBuffer of its own, which the thread moves to the
 * export's thread with its answer, and which comes back once written (ShiftThreads.reuseSheetRows).
 */
export type SheetRows =
  | {
      readonly xml: Uint8Array;
      readonly pieceRows: readonly number[];
      readonly pieceEnds: readonly number[];
    }
  | { readonly values: readonly (readonly XlsxValue[])[] };

/**
 * Keeps the admitted records of the cuts a thread worked, until their sheet rows are asked for.
 * With `known`, it remembers the indices the requests give the report's cuts' texts (shared-texts.ts).
 */
export class SheetRowsKeeper {
  readonly #records = new Map<number, KeptRecords>();

  constructor(readonly known?: KnownTextIds) {}

  /**
   * `sharedLabels`: per record, its shared texts' labels (cut-work.ts, KeptCut); `entries`, for a
   * report's cut labelled by `known`, its labels' entries, which learn the indices they are given.
   */
  keep(
    seq: number,
    records: readonly ShiftRecord[],
    sharedLabels: Int32Array,
    entries?: readonly TextEntry[],
  ): void {
    this.#records.set(seq, { records, sharedLabels, entries });
  }

  /** Cuts whose records are kept: for tests and the thread's memory. */
  get cuts(): number {
    return this.#records.size;
  }

  /** `buffers`: where the rows' buffer is taken from (the thread's spare buffers). */
  render(request: SheetRowsRequest, buffers: RowBuffers = FRESH_ROW_BUFFERS): SheetRows {
    // Asked in report order: a cut before this one is never asked again (its rows were dropped
    // when the reader rewound or retried), and its records go.
    for (const seq of this.#records.keys()) {
      if (seq >= request.seq) break;
      this.#records.delete(seq);
    }
    const kept = this.#records.get(request.seq);
    if (kept === undefined) throw new Error(`no records are kept for cut ${request.seq}`);
    if (request.last) this.#records.delete(request.seq);
    const records: ShiftRecord[] = [];
    const { from, keep } = request;
    for (let k = 0; k < keep.length; k++)
      if (keep[k] === 1) records.push(kept.records[from + k] as ShiftRecord);
    const texts = rowTextIds(kept.sharedLabels, request.textIds, from, keep);
    if (kept.entries !== undefined) this.known?.learn(request.table, kept.entries, request.textIds);
    return renderSheetRows(records, request, texts, buffers);
  }
}

/**
 * The memory of shared-text indices an export's threads keep, when they render the report's own
 * sheet rows: one workbook table's indices (or several alike). Split by division, each division's
 * workbook has a table of its own, and the threads keep none.
 */
export function knownTextIdsOf(
  setup: Pick<CutWorkSetup, 'sheetRows' | 'division'>,
): KnownTextIds | undefined {
  return setup.sheetRows === true && setup.division?.sheetRows !== true ? new KnownTextIds() : undefined;
}

interface KeptRecords {
  readonly records: readonly ShiftRecord[];
  readonly sharedLabels: Int32Array;
  readonly entries: readonly TextEntry[] | undefined;
}

/**
 * `records` placed as `place` says, their shared texts indexed by `texts` (by text, or row by row):
 * row XML per sheet, or their values when a style is missing.
 */
export function renderSheetRows(
  records: readonly ShiftRecord[],
  place: SheetPlace,
  texts: SharedTextIds | RowTextIds,
  buffers: RowBuffers = FRESH_ROW_BUFFERS,
): SheetRows {
  const { firstRow, sheetRowLimit, styles } = place;
  const pieces: Buffer[] = [];
  const pieceRows: number[] = [];
  const pieceEnds: number[] = [];
  let bytes = 0;
  let at = 0;
  let row = firstRow;
  while (at < records.length) {
    const rows = Math.min(records.length - at, sheetRowLimit + 2 - row);
    if (rows > 0) {
      const xml = renderShiftRowsXml(
        records.slice(at, at + rows),
        row,
        styles,
        rowsOf(texts, at, rows),
        buffers,
      );
      if (xml === undefined) {
        for (const piece of pieces) buffers.give(piece.buffer as ArrayBuffer);
        return { values: records.map(shiftRowValues) };
      }
      pieces.push(xml);
      bytes += xml.length;
    }
    pieceRows.push(Math.max(0, rows));
    pieceEnds.push(bytes);
    at += Math.max(0, rows);
    row = 2;
  }
  const xml = pieces.length === 1 ? (pieces[0] as Buffer) : copyOfAll(pieces, buffers);
  return { xml, pieceRows, pieceEnds };
}

/** The texts of `rows` rows from `at`: row by row, their own part. */
function rowsOf(texts: SharedTextIds | RowTextIds, at: number, rows: number): SharedTextIds | RowTextIds {
  if (!(texts instanceof Int32Array)) return texts;
  const columns = SHARED_TEXT_COLUMN_NAMES.length;
  return texts.subarray(at * columns, (at + rows) * columns);
}

/** One buffer of its own (not from Node's shared pool): it is transferred to the export's thread. */
function copyOfAll(pieces: readonly Buffer[], buffers: RowBuffers): Buffer {
  let bytes = 0;
  for (const piece of pieces) bytes += piece.length;
  const all = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const piece of pieces) {
    at += piece.copy(all, at);
    buffers.give(piece.buffer as ArrayBuffer);
  }
  return all;
}
