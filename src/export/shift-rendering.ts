// Rendering a batch's exported shifts on another thread: the batch crosses as the text the reader
// parsed (a string is copied in one piece, where the parsed rows would cost as much to send as to
// render), with which of its rows were exported; the thread parses it again and rebuilds those
// rows' records through the same stages (validate, localise, enrich: pure functions of the row,
// its text and the division directory), then renders them with the same encoders the export's own
// thread uses. So the bytes are the same whichever thread rendered a batch (test/export/
// export-threads.int.test.ts holds it), and the decisions that need the whole report (the window,
// duplicates, statistics, change tracking) stay on the export's thread.

import type { ParsedBatch } from '../domain/raw-rows.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import { enrichShift, type DivisionDirectory } from '../pipeline/enrich.js';
import { localiseShift } from '../pipeline/localise.js';
import { isRejected, validateShift } from '../pipeline/validate.js';
import { CsvRecordEncoder, type CsvTableOptions } from '../render/csv/csv-table-writer.js';
import { renderShiftRowsXml, type ShiftStyleIds } from '../render/xlsx/shift-rows-xml.js';
import { parsedBatchTexts } from '../wfm/array-element-texts.js';

/** What a render thread is set up with. */
export interface RenderSetup {
  readonly divisions: DivisionDirectory;
  /** The CSV options of shifts.csv; none: no CSV is written. */
  readonly csv: CsvTableOptions | undefined;
}

/** One batch's exported shifts, to be rendered. */
export interface RenderRequest {
  readonly batch: ParsedBatch;
  /** Index in the batch of each exported row, in order. */
  readonly rowIndexes: Int32Array;
  /** Their ids, as the export's thread read them: checked, so that a difference cannot pass. */
  readonly ids: Float64Array;
  /** Where the rows go in the Shifts sheet; none: no workbook is written. */
  readonly xlsx: { readonly firstRow: number; readonly styles: ShiftStyleIds } | undefined;
}

/** The rendered rows: CSV records and Shifts row XML, UTF-8. */
export interface RenderedShifts {
  readonly csv: Buffer | undefined;
  /** Undefined also when a row needs a style the workbook has not registered yet (shift-rows-xml.ts). */
  readonly xlsx: Buffer | undefined;
}

/** The records of a batch's exported rows, rebuilt as the export's thread built them. */
export function rebuildRecords(request: RenderRequest, divisions: DivisionDirectory): ShiftRecord[] {
  const rows = JSON.parse(request.batch.text) as unknown[];
  const texts = parsedBatchTexts(request.batch);
  const records: ShiftRecord[] = [];
  for (let k = 0; k < request.rowIndexes.length; k++) {
    const index = request.rowIndexes[k] as number;
    const valid = validateShift(rows[index], texts, index);
    if (isRejected(valid) || valid.shift.id !== request.ids[k])
      throw new Error(`row ${index} of the batch is not the exported shift ${request.ids[k]}`);
    records.push(enrichShift(localiseShift(valid), divisions));
  }
  texts.release();
  return records;
}

/** Renders one request; `csv` is the encoder of RenderSetup.csv. */
export function renderShifts(
  request: RenderRequest,
  divisions: DivisionDirectory,
  csv: CsvRecordEncoder<ShiftRecord> | undefined,
): RenderedShifts {
  const records = rebuildRecords(request, divisions);
  const xlsx = request.xlsx;
  return {
    csv: csv?.records(records),
    xlsx: xlsx === undefined ? undefined : renderShiftRowsXml(records, xlsx.firstRow, xlsx.styles),
  };
}

/** The CSV encoder of a setup. */
export function csvEncoderOf(setup: RenderSetup): CsvRecordEncoder<ShiftRecord> | undefined {
  return setup.csv === undefined ? undefined : new CsvRecordEncoder(SHIFT_COLUMNS, setup.csv);
}
