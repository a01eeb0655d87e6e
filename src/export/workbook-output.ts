// Where the export hands the workbook's rows: today the streaming ShiftsWorkbookWriter in this
// thread. Kept behind one small interface so the renderer can move to a worker thread (both cores)
// without touching the use case.

import type { Writable } from 'node:stream';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import {
  ShiftsWorkbookWriter,
  type ShiftsWorkbookOptions,
  type WorkbookAbout,
} from '../render/xlsx/shifts-workbook-writer.js';

export interface WorkbookOutput {
  addShift(record: ShiftRecord): Promise<void> | undefined;
  addRejected(row: RejectedRow): Promise<void> | undefined;
  finish(summaries: ExportSummaries, about: WorkbookAbout): Promise<void>;
  abort(error: unknown): Promise<void>;
}

export function openWorkbook(sink: Writable, options: ShiftsWorkbookOptions): WorkbookOutput {
  return new ShiftsWorkbookWriter(sink, options);
}
