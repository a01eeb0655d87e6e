// Where the exported shifts of each batch are written: shifts.csv and the workbook's Shifts sheet,
// in report order. One output for both files; the CSV and workbook outputs (csv-tables-output.ts,
// workbook-output.ts) write the rest of their files and end them after this one has finished.
//
// Rows worked on export threads (cut-work.ts) arrive with their CSV records rendered there, and
// their sheet rows are placed here in order (row number, sheet) and rendered by the thread that
// worked their cut (sheet-rows-work.ts); a few batches are under way at once, and each one's sheet
// rows are written when every batch before it has been. Their CSV records go into shifts.csv at
// once, as the batches come in report order. Rows worked on the export's thread (one thread, or a source
// that hands out no unparsed cuts) arrive as records and are rendered here, in their turn.

import { isDeepStrictEqual } from 'node:util';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { Logger } from '../logger.js';
import type { CsvTableWriter } from '../render/csv/csv-table-writer.js';
import type { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import type { ShiftStyleIds } from '../render/xlsx/shift-rows-xml.js';
import {
  cutTextIds,
  newSharedTextsNumber,
  NO_SHARED_TEXTS,
  type SharedTextIds,
} from '../render/xlsx/shared-texts.js';
import type { ExportBatch, TableOutput } from './table-output.js';
import type { SheetRows } from './sheet-rows-work.js';
import type { WorkedRows } from './worked-cut-pipeline.js';

/** Batches of worked rows under way at once: the threads render some while earlier ones are written. */
const WORKED_PENDING = 4;

/** A batch of rows worked on export threads, whose sheet rows are placed and being rendered. */
interface Pending {
  readonly sheet: readonly {
    readonly firstRow: number;
    readonly rendered: Promise<SheetRows>;
    /** The rows are written into every workbook: their buffer can serve later rows. */
    readonly written: (rows: SheetRows) => void;
  }[];
  /** The threads have answered: writing it waits for nothing. */
  ready: boolean;
}

export interface ShiftRowsOutputOptions {
  readonly csv: CsvTableWriter<ShiftRecord> | undefined;
  /**
   * The workbooks whose Shifts sheets take the rows: none, or one per language. Every call goes
   * to each in the same order, so each registers the same styles under the same ids and the rows
   * rendered once (on a thread or here) are written into all of them as the same bytes.
   */
  readonly workbooks: readonly ShiftsWorkbookWriter[];
  /** Where finish() says how the sheet rows were rendered, when export threads rendered them. */
  readonly log?: Logger;
}

export class ShiftRowsOutput implements TableOutput {
  readonly #csv: CsvTableWriter<ShiftRecord> | undefined;
  /** The first workbook: its registered styles are what threads render rows with. */
  readonly #workbook: ShiftsWorkbookWriter | undefined;
  readonly #workbooks: readonly ShiftsWorkbookWriter[];
  readonly #log: Logger | undefined;
  readonly #sheetRowLimit: number;
  /** The workbooks' shared texts, asked of every workbook alike, and their number for the threads. */
  readonly #texts: SharedTextIds;
  readonly #textsNumber = newSharedTextsNumber();
  readonly #pending: Pending[] = [];
  /** Data rows of the current Shifts sheet once every pending batch is written. */
  #sheetRows = 0;
  /** A thread has rendered worked rows with the styles it was given. */
  #workedStylesSettled = false;
  /** Sheet rows rendered on export threads; sheet rows redone here for a new style. */
  threadBatches = 0;
  styleRetries = 0;

  constructor(options: ShiftRowsOutputOptions) {
    this.#csv = options.csv;
    this.#workbooks = options.workbooks;
    this.#workbook = options.workbooks[0];
    this.#log = options.log;
    this.#sheetRowLimit = this.#workbook?.sheetRowLimit ?? Number.MAX_SAFE_INTEGER;
    this.#texts = sameTextIds(options.workbooks.map((workbook) => workbook.shiftTexts));
  }

  /** Takes one batch's exported rows; resolves once there is room for the next batch. */
  async write({ shifts: records, worked }: ExportBatch): Promise<void> {
    if (worked !== undefined && worked.count > 0) await this.#writeWorked(worked);
    if (records.length === 0 || (this.#csv === undefined && this.#workbook === undefined)) return;
    // Counted so that worked rows after these would be placed after them.
    this.#placeRows(records.length);
    // In turn: after every batch before.
    while (this.#pending.length > 0) await this.#writeNext();
    const csv = this.#csv;
    if (csv !== undefined)
      for (const record of records) {
        const w = csv.write(record);
        if (w) await w;
      }
    for (const workbook of this.#workbooks)
      for (const record of records) {
        const w = workbook.addShift(record);
        if (w) await w;
      }
  }

  /**
   * Rows worked on export threads: their CSV records as rendered there, written now, and their
   * sheet rows placed here and rendered on those threads, written after every batch before.
   */
  async #writeWorked(worked: WorkedRows): Promise<void> {
    // Now, from the cut's buffer, which goes back to its export thread once this write returns
    // (stream-batches.ts): the records are copied into the CSV's chunk before it waits. Kept until
    // the batch's sheet rows were written, they had been copied once more (~190 MB at 300k rows).
    const csvWritten = this.#csv?.writeEncoded(worked.csv, worked.count);
    if (csvWritten) await csvWritten;
    const workbook = this.#workbook;
    if (workbook === undefined) return;
    if (worked.sheet === undefined)
      throw new Error('rows worked on export threads came without their sheet rows');
    // Until a thread has rendered a cut's rows, the workbook is still registering the styles the
    // rows need: each batch waits for those before it, to be sent with the styles they registered.
    if (!this.#workedStylesSettled) while (this.#pending.length > 0) await this.#writeNext();
    // The styles known now: a row that needs another comes back as values, written here in turn.
    const styles = workbook.shiftStyles();
    this.#checkSameStyles(styles);
    const sheetRowLimit = this.#sheetRowLimit;
    const sheet = worked.sheet.map((part) => {
      const firstRow = this.#placeRows(part.rows);
      // Now, in report order, before any later row is written here or asked of a thread: the
      // indices are given in the order the rows are written, whoever renders them.
      const textIds = cutTextIds(this.#texts, part.texts, this.#textsNumber);
      const rendered = part.render({ firstRow, sheetRowLimit, styles, textIds, table: this.#textsNumber });
      return { firstRow, rendered, written: (rows: SheetRows) => part.written(rows) };
    });
    const pending: Pending = { sheet, ready: false };
    // Awaited in turn below; until then a failure must not count as unhandled.
    void Promise.allSettled(sheet.map((part) => part.rendered)).then(() => (pending.ready = true));
    this.#pending.push(pending);
    while (this.#pending[0]?.ready === true) await this.#writeNext();
    while (this.#pending.length > WORKED_PENDING) await this.#writeNext();
  }

  /** Writes every batch still pending, before the export threads that render them end. */
  async drain(): Promise<void> {
    while (this.#pending.length > 0) await this.#writeNext();
  }

  /** Writes every batch still pending; the files themselves are ended by their outputs. */
  async finish(): Promise<void> {
    while (this.#pending.length > 0) await this.#writeNext();
    if (this.threadBatches > 0)
      this.#log?.debug(
        { threadBatches: this.threadBatches, styleRetries: this.styleRetries },
        'shifts rendered on export threads',
      );
  }

  /** Batches still pending are dropped. */
  abort(): Promise<void> {
    this.#pending.length = 0;
    return Promise.resolve();
  }

  /**
   * Counts `rows` more into the Shifts sheets, as ShiftsWorkbookWriter fills a sheet and starts
   * the next; the row number of the first were the current sheet to have room (its limit + 2 when
   * it is full: they then begin the next).
   */
  #placeRows(rows: number): number {
    const before = this.#sheetRows;
    const limit = this.#sheetRowLimit;
    const after = before + rows;
    this.#sheetRows = after <= limit ? after : ((after - 1) % limit) + 1;
    return before + 2;
  }

  async #writeWorkedNext({ sheet }: Pending): Promise<void> {
    for (const { firstRow, rendered, written } of sheet) {
      const answer = await rendered;
      if ('values' in answer) {
        this.styleRetries++;
        for (const workbook of this.#workbooks)
          for (const values of answer.values) {
            const w = workbook.addShiftValues(values);
            if (w) await w;
          }
        continue;
      }
      this.threadBatches++;
      this.#workedStylesSettled = true;
      const xml = Buffer.from(answer.xml.buffer, answer.xml.byteOffset, answer.xml.byteLength);
      let start = 0;
      for (let piece = 0; piece < answer.pieceRows.length; piece++) {
        const pieceRows = answer.pieceRows[piece] as number;
        const end = answer.pieceEnds[piece] as number;
        if (pieceRows > 0)
          for (const workbook of this.#workbooks)
            await workbook.addRenderedShifts(xml.subarray(start, end), pieceRows, piece === 0 ? firstRow : 2);
        start = end;
      }
      // Every workbook has copied the rows (addRenderedShifts copies before it waits).
      written(answer);
    }
  }

  /**
   * The rows are rendered once, with the first workbook's style ids: every other workbook must
   * have registered the same ones, or its cells would point at other styles.
   */
  #checkSameStyles(styles: ShiftStyleIds): void {
    for (const other of this.#workbooks.slice(1)) {
      if (!isDeepStrictEqual(other.shiftStyles(), styles))
        throw new Error('the workbooks of one export registered different shift styles');
    }
  }

  async #writeNext(): Promise<void> {
    const next = this.#pending.shift();
    if (next !== undefined) await this.#writeWorkedNext(next);
  }
}

/**
 * The rows are rendered once, with the indices of the first workbook's shared texts: every other
 * workbook is asked the same texts in the same order and must give the same indices.
 */
function sameTextIds(tables: readonly SharedTextIds[]): SharedTextIds {
  const [first, ...others] = tables;
  if (first === undefined) return NO_SHARED_TEXTS;
  if (others.length === 0) return first;
  return {
    idOf(text) {
      const id = first.idOf(text);
      for (const other of others)
        if (other.idOf(text) !== id)
          throw new Error('the workbooks of one export gave a shared text different indices');
      return id;
    },
  };
}
