// Where the exported shifts of each batch are written: shifts.csv and the workbook's Shifts sheet,
// in report order, rendered here or on the render threads (render-pool.ts). A batch is rendered
// on a thread when the reader kept it as one parsed text (nearly always) and its rows fit the
// current sheet; up to two batches a thread are under way at once, and each is written when every
// batch before it has been. A batch rendered here (no pool, a batch joined from several, a sheet
// that rolls over) or whose rows need a workbook style not registered yet (shift-rows-xml.ts)
// takes its turn like the others, so the files are the same bytes whichever thread rendered what.
// One output for both files, so that a thread renders a batch's CSV records and sheet rows from
// one parse; the CSV and workbook outputs (csv-tables-output.ts, workbook-output.ts) write the
// rest of their files and end them after this one has finished.
//
// Rows worked on export threads (cut-work.ts) arrive with their CSV records rendered there, and
// their sheet rows are placed here in order (row number, sheet) and rendered by the thread that
// worked their cut (sheet-rows-work.ts); a few batches are under way at once, and each is written
// when every batch before it has been. Those threads are then the export's only ones: the render
// threads are started only for a batch that comes as records.

import type { ShiftRecord } from '../domain/shift-record.js';
import type { Logger } from '../logger.js';
import type { CsvTableWriter } from '../render/csv/csv-table-writer.js';
import type { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import { RenderPool } from './render-pool.js';
import type { RenderedShifts, RenderRequest, RenderSetup } from './shift-rendering.js';
import type { ExportBatch, TableOutput } from './table-output.js';
import type { SheetRows } from './sheet-rows-work.js';
import type { WorkedRows } from './worked-cut-pipeline.js';

/** Batches of worked rows under way at once: the threads render some while earlier ones are written. */
const WORKED_PENDING = 4;

interface Pending {
  /** Rows worked on export threads: their CSV records and their sheet rows, as placed. */
  readonly worked?: PendingWorked;
  readonly records: readonly ShiftRecord[];
  /** Row number of the first record in the Shifts sheet, when rendered on a thread. */
  readonly firstRow: number | undefined;
  readonly rendered: Promise<RenderedShifts> | undefined;
  /** Rendered here, or the thread has answered: writing it waits for nothing. */
  ready: boolean;
}

interface PendingWorked {
  readonly rows: WorkedRows;
  readonly sheet: readonly { readonly firstRow: number; readonly rendered: Promise<SheetRows> }[];
}

export interface ShiftRowsOutputOptions {
  readonly csv: CsvTableWriter<ShiftRecord> | undefined;
  readonly workbook: ShiftsWorkbookWriter | undefined;
  /** Render threads; none: every batch is rendered here. */
  readonly pool: RenderPool | undefined;
  /** Where finish() says how the batches were rendered, when there were render threads. */
  readonly log?: Logger;
}

export interface ShiftRowsThreads {
  /** EXPORT_THREADS: threads that render the shifts, the export's own included. */
  readonly threads: number;
  /** What the render threads are set up with: the division directory and shifts.csv's options. */
  readonly setup: RenderSetup;
}

export class ShiftRowsOutput implements TableOutput {
  readonly #csv: CsvTableWriter<ShiftRecord> | undefined;
  readonly #workbook: ShiftsWorkbookWriter | undefined;
  #pool: RenderPool | undefined;
  /** Starts the render threads when the first batch comes as records. */
  #startPool: (() => RenderPool) | undefined;
  readonly #log: Logger | undefined;
  /** The pool was started by open(), and ends with this output. */
  #ownsPool = false;
  readonly #sheetRowLimit: number;
  readonly #pending: Pending[] = [];
  /** Data rows of the current Shifts sheet once every pending batch is written. */
  #sheetRows = 0;
  /** A thread has rendered worked rows with the styles it was given. */
  #workedStylesSettled = false;
  /** Batches sent to a thread; rendered here although a pool was there; sheet rows redone here for a new style. */
  threadBatches = 0;
  localBatches = 0;
  styleRetries = 0;

  constructor(options: ShiftRowsOutputOptions) {
    this.#csv = options.csv;
    this.#workbook = options.workbook;
    this.#pool = options.pool;
    this.#log = options.log;
    this.#sheetRowLimit = options.workbook?.sheetRowLimit ?? Number.MAX_SAFE_INTEGER;
  }

  /**
   * The export's shift rows, on render threads of their own when `threads` asks for more than the
   * export's thread. Render threads pay for the workbook only: each parses its batches again
   * (~5 CPU-µs a row), about what rendering a CSV record costs, so a CSV-only export was slower
   * with them (docs/performance.md). The threads end when the output finishes or aborts.
   */
  static open(
    options: Omit<ShiftRowsOutputOptions, 'pool'>,
    { threads, setup }: ShiftRowsThreads,
  ): ShiftRowsOutput {
    const output = new ShiftRowsOutput({ ...options, pool: undefined });
    if (threads > 1 && options.workbook !== undefined)
      output.#startPool = () => {
        output.#ownsPool = true;
        return new RenderPool(threads - 1, setup);
      };
    return output;
  }

  /** With render threads, each batch comes with the text it was parsed from. */
  get wantsParsedBatch(): boolean {
    return this.#pool !== undefined || this.#startPool !== undefined;
  }

  /**
   * Takes one batch's exported records (`rowIndexes`: where each was in `parsed`, the text it was
   * parsed from); resolves once there is room for the next batch.
   */
  async write({ shifts: records, rowIndexes, parsed: batch, worked }: ExportBatch): Promise<void> {
    if (worked !== undefined && worked.count > 0) await this.#writeWorked(worked);
    if (records.length === 0 || (this.#csv === undefined && this.#workbook === undefined)) return;
    if (this.#pool === undefined && this.#startPool !== undefined && batch !== undefined) {
      this.#pool = this.#startPool();
      this.#startPool = undefined;
    }
    const pool = this.#pool;
    const firstRow = this.#planRows(records.length);
    const threaded = pool !== undefined && batch !== undefined;
    const styles = threaded ? this.#workbook?.shiftStyles() : undefined;
    // Before the first row is written no style is known, and a thread could not render the sheet.
    const local = !threaded || (styles !== undefined && (firstRow === undefined || styles.row === null));
    if (pool === undefined || batch === undefined || local) {
      if (pool !== undefined) this.localBatches++;
      this.#pending.push({ records, firstRow: undefined, rendered: undefined, ready: true });
    } else {
      const request: RenderRequest = {
        batch,
        rowIndexes: Int32Array.from(rowIndexes),
        ids: Float64Array.from(records, (record) => record.shift.id),
        xlsx: styles === undefined || firstRow === undefined ? undefined : { firstRow, styles },
      };
      const pending: Pending = { records, firstRow, rendered: pool.render(request), ready: false };
      // Awaited in turn below; until then a failure must not count as unhandled.
      pending.rendered?.then(
        () => (pending.ready = true),
        () => (pending.ready = true),
      );
      this.threadBatches++;
      this.#pending.push(pending);
    }
    // What can be written now is: the workbook then knows the styles the next batches need.
    while (this.#pending[0]?.ready === true) await this.#writeNext();
    const most = pool === undefined ? 0 : pool.size * 2;
    while (this.#pending.length > most) await this.#writeNext();
  }

  /**
   * Rows worked on export threads: their CSV records as rendered there, and their sheet rows
   * placed here and rendered on those threads, written after every batch before.
   */
  async #writeWorked(worked: WorkedRows): Promise<void> {
    const workbook = this.#workbook;
    if (workbook === undefined) {
      while (this.#pending.length > 0) await this.#writeNext();
      if (this.#csv !== undefined) await this.#csv.writeEncoded(worked.csv, worked.count);
      return;
    }
    if (worked.sheet === undefined)
      throw new Error('rows worked on export threads came without their sheet rows');
    // Until a thread has rendered a cut's rows, the workbook is still registering the styles the
    // rows need: each batch waits for those before it, to be sent with the styles they registered.
    if (!this.#workedStylesSettled) while (this.#pending.length > 0) await this.#writeNext();
    // The styles known now: a row that needs another comes back as values, written here in turn.
    const styles = workbook.shiftStyles();
    const sheetRowLimit = this.#sheetRowLimit;
    const sheet = worked.sheet.map((part) => {
      const firstRow = this.#placeRows(part.rows);
      return { firstRow, rendered: part.render({ firstRow, sheetRowLimit, styles }) };
    });
    const pending: Pending = {
      // Its CSV records are copied: they lie in the cut's buffer, which goes back to its export
      // thread once this write returns (stream-batches.ts), and they are written later, in turn.
      worked: { rows: { ...worked, csv: worked.csv.length === 0 ? [] : [Buffer.concat(worked.csv)] }, sheet },
      records: [],
      firstRow: undefined,
      rendered: undefined,
      ready: false,
    };
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
    if (this.#pool !== undefined)
      this.#log?.debug(
        {
          threadBatches: this.threadBatches,
          localBatches: this.localBatches,
          styleRetries: this.styleRetries,
        },
        'shifts rendered',
      );
    else if (this.threadBatches > 0)
      this.#log?.debug(
        { threadBatches: this.threadBatches, styleRetries: this.styleRetries },
        'shifts rendered on export threads',
      );
    await this.#closePool();
  }

  /** Batches still pending are dropped; the render threads end. */
  async abort(): Promise<void> {
    this.#pending.length = 0;
    await this.#closePool();
  }

  async #closePool(): Promise<void> {
    if (!this.#ownsPool) return;
    this.#ownsPool = false;
    await this.#pool?.close();
  }

  /**
   * Counts `rows` more into the current sheet; the row number of the first when they fit it, else
   * undefined (they are then written here, where the sheet rolls over as it fills).
   */
  #planRows(rows: number): number | undefined {
    const before = this.#sheetRows;
    const limit = this.#sheetRowLimit;
    let after = before + rows;
    if (after <= limit) {
      this.#sheetRows = after;
      return before + 2;
    }
    // As ShiftsWorkbookWriter.addShift fills a sheet and starts the next.
    after = ((after - 1) % limit) + 1;
    this.#sheetRows = after;
    return undefined;
  }

  /**
   * Counts `rows` more into the Shifts sheets; the row number of the first were the current sheet
   * to have room (its limit + 2 when it is full: they then begin the next).
   */
  #placeRows(rows: number): number {
    const before = this.#sheetRows;
    const limit = this.#sheetRowLimit;
    const after = before + rows;
    this.#sheetRows = after <= limit ? after : ((after - 1) % limit) + 1;
    return before + 2;
  }

  async #writeWorkedNext({ rows, sheet }: PendingWorked): Promise<void> {
    if (this.#csv !== undefined) await this.#csv.writeEncoded(rows.csv, rows.count);
    const workbook = this.#workbook;
    if (workbook === undefined) return;
    for (const { firstRow, rendered } of sheet) {
      const answer = await rendered;
      if ('values' in answer) {
        this.styleRetries++;
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
          await workbook.addRenderedShifts(xml.subarray(start, end), pieceRows, piece === 0 ? firstRow : 2);
        start = end;
      }
    }
  }

  async #writeNext(): Promise<void> {
    const next = this.#pending[0];
    if (next === undefined) return;
    if (next.worked !== undefined) {
      this.#pending.shift();
      await this.#writeWorkedNext(next.worked);
      return;
    }
    const rendered = next.rendered === undefined ? undefined : await next.rendered;
    this.#pending.shift();
    const { records } = next;
    const csv = this.#csv;
    if (csv !== undefined) {
      const wait = rendered?.csv === undefined ? undefined : csv.writeEncoded(rendered.csv, records.length);
      if (wait) await wait;
      if (rendered?.csv === undefined) {
        for (const record of records) {
          const w = csv.write(record);
          if (w) await w;
        }
      }
    }
    const workbook = this.#workbook;
    if (workbook === undefined) return;
    if (rendered?.xlsx !== undefined && next.firstRow !== undefined) {
      await workbook.addRenderedShifts(rendered.xlsx, records.length, next.firstRow);
      return;
    }
    if (rendered !== undefined) this.styleRetries++;
    for (const record of records) {
      const w = workbook.addShift(record);
      if (w) await w;
    }
  }
}
