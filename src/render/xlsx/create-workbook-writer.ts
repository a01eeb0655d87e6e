// The exceljs streaming workbook, set up so that the same input gives the same bytes: workbook
// properties come from the export, and the zip entries carry the export's time instead of "now"
// (archiver stamps every entry with new Date() unless told otherwise; exceljs never tells it).
// No shared strings (a string table held in memory, and slower), styles on.

import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { xmlSafeText } from './xml-safe-text.js';

export interface WorkbookWriterSetup {
  readonly createdAt: Date;
  readonly creator: string;
  /** zlib level of the zip entries, 0-9 (default 1: no slower than 0 yet compressed, bench/README.md). */
  readonly compressionLevel?: number;
}

interface ZipAppender {
  append(source: unknown, data?: Record<string, unknown>): unknown;
}

/** The parts of exceljs's writer its type declarations leave out. */
interface WorkbookWriterInternals {
  readonly zip: ZipAppender & {
    abort(): unknown;
    on(event: 'error', listener: (error: unknown) => void): unknown;
  };
  readonly created: Date;
}

const stamped = new WeakSet<object>();

class FixedDateWorkbookWriter extends ExcelJS.stream.xlsx.WorkbookWriter {
  // Both are called from exceljs's constructor, after the archive exists and before the first
  // entry is appended: the only moment every entry can still get a fixed date.
  override addThemes(): Promise<void> {
    this.stampEntries();
    return super.addThemes();
  }

  override addOfficeRels(): Promise<void> {
    this.stampEntries();
    return super.addOfficeRels();
  }

  private stampEntries(): void {
    const internals = this as unknown as WorkbookWriterInternals;
    const { zip, created } = internals;
    if (stamped.has(zip)) return;
    stamped.add(zip);
    const append = zip.append.bind(zip);
    zip.append = (source, data) => append(source, { ...data, date: created });
  }
}

export type StreamingWorkbook = InstanceType<typeof ExcelJS.stream.xlsx.WorkbookWriter>;

export function createWorkbookWriter(sink: Writable, setup: WorkbookWriterSetup): StreamingWorkbook {
  const options = {
    stream: sink,
    useStyles: true,
    useSharedStrings: false,
    created: setup.createdAt,
    zip: { zlib: { level: setup.compressionLevel ?? 1 } },
  };
  const workbook = new FixedDateWorkbookWriter(options);
  workbook.creator = xmlSafeText(setup.creator);
  workbook.lastModifiedBy = workbook.creator;
  workbook.created = setup.createdAt;
  workbook.modified = setup.createdAt;
  return workbook;
}

/** The zip archive under the workbook: its errors, and a way to stop it. */
export function archiveOf(workbook: StreamingWorkbook): {
  onError(listener: (error: unknown) => void): void;
  abort(): void;
} {
  const { zip } = workbook as unknown as WorkbookWriterInternals;
  return {
    onError: (listener) => zip.on('error', listener),
    abort: () => zip.abort(),
  };
}
