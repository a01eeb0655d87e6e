// The messages between the export's thread and the workbook thread (workbook-thread.ts). Shifts
// cross as JSON text, a batch at a time: one string is the cheapest thing to copy between threads,
// and the records are plain JSON data, so the renderer sees the same values it would in this
// thread. Workbook bytes come back as transferred buffers, acknowledged once the destination has
// taken them, which bounds the bytes in flight.

import type { RejectedRow } from '../domain/rejected-row.js';
import type { ExportSummaries } from '../domain/summary.js';
import type { ShiftsWorkbookOptions, WorkbookAbout } from '../render/xlsx/shifts-workbook-writer.js';

/** To the workbook thread. `seq` numbers the requests it answers with `done`. */
export type ToWorkbookThread =
  | { readonly type: 'shifts'; readonly seq: number; readonly json: string }
  | { readonly type: 'rejected'; readonly seq: number; readonly rows: readonly RejectedRow[] }
  | {
      readonly type: 'finish';
      readonly seq: number;
      readonly summaries: ExportSummaries;
      readonly about: WorkbookAbout;
    }
  | { readonly type: 'abort'; readonly seq: number; readonly message: string }
  /** The destination accepted this many more bytes. */
  | { readonly type: 'ack'; readonly bytes: number };

/** From the workbook thread. */
export type FromWorkbookThread =
  | { readonly type: 'chunk'; readonly bytes: Uint8Array }
  | { readonly type: 'end' }
  | { readonly type: 'done'; readonly seq: number }
  | { readonly type: 'failed'; readonly seq: number; readonly error: ThreadErrorData };

export interface ThreadErrorData {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** workerData of the workbook thread. */
export interface WorkbookThreadData {
  readonly options: ShiftsWorkbookOptions;
}
