// Test helpers: render a workbook into memory through the streaming writer, and read it back with
// exceljs's (non-streaming) reader.

import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { RejectedRow } from '../../../src/domain/rejected-row.js';
import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import type { ExportSummaries } from '../../../src/domain/summary.js';
import {
  ShiftsWorkbookWriter,
  type ShiftsWorkbookOptions,
  type WorkbookAbout,
} from '../../../src/render/xlsx/shifts-workbook-writer.js';
import { about as defaultAbout, summaries as defaultSummaries } from './shift-fixtures.js';

export const CREATED_AT = new Date(Date.UTC(2024, 4, 8, 4, 0, 0));

export class MemorySink extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    callback();
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export interface RenderInput {
  readonly shifts?: readonly ShiftRecord[];
  readonly rejected?: readonly RejectedRow[];
  readonly summaries?: ExportSummaries;
  readonly about?: WorkbookAbout;
  readonly options?: Partial<ShiftsWorkbookOptions>;
}

export async function renderWorkbook(input: RenderInput = {}): Promise<Buffer> {
  const sink = new MemorySink();
  const writer = new ShiftsWorkbookWriter(sink, {
    createdAt: CREATED_AT,
    creator: 'shift-export test',
    matchRateThreshold: 0.8,
    period: (input.about ?? defaultAbout()).period,
    ...input.options,
  });
  // Interleaved, as the pipeline delivers them.
  const shifts = input.shifts ?? [];
  const rejected = input.rejected ?? [];
  for (let i = 0; i < Math.max(shifts.length, rejected.length); i++) {
    const shift = shifts[i];
    if (shift !== undefined) {
      const wait = writer.addShift(shift);
      if (wait) await wait;
    }
    const row = rejected[i];
    if (row !== undefined) {
      const wait = writer.addRejected(row);
      if (wait) await wait;
    }
  }
  await writer.finish(input.summaries ?? defaultSummaries(), input.about ?? defaultAbout());
  return sink.bytes;
}

export async function readWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  // exceljs types its input as an ArrayBuffer: hand it a copy of the bytes as one.
  await workbook.xlsx.load(new Uint8Array(bytes).buffer);
  return workbook;
}

export function sheet(workbook: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const worksheet = workbook.getWorksheet(name);
  if (worksheet === undefined) throw new Error(`no sheet "${name}"`);
  return worksheet;
}

/** The row's values as a 0-based array (exceljs rows are 1-based with a hole at 0). */
export function rowValues(worksheet: ExcelJS.Worksheet, rowNumber: number): unknown[] {
  const values = worksheet.getRow(rowNumber).values;
  return Array.isArray(values) ? values.slice(1) : [];
}
