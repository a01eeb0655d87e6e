// Keeps the streaming workbook in step with its destination. Writing a sheet ignores backpressure
// (TableSheet's blocks of rows and exceljs's row.commit() alike): each sheet's XML goes into
// exceljs's internal stream, which writes into the archive's PassThrough without waiting, so with
// a slow destination (or zlib behind) the sheet XML piles up in memory without bound. Every
// few rows we yield to the event loop (zlib, I/O, BullMQ's lock renewals run then) and, when that
// PassThrough holds more than HIGH_WATER bytes, wait for it to drain — which happens only as fast
// as the destination takes the zipped bytes.

import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SheetBacklog, XlsxSheet } from './exceljs-adapter.js';
import type { WriteFailure } from './write-failure.js';

/**
 * Rows between two yields. zlib compresses one 64 KiB block of sheet XML (~40 rows) per trip to the
 * thread pool, and the next trip starts only when this thread yields: yield too seldom and the
 * archive falls behind and this thread waits for it (figures: docs/performance.md). The memory bound
 * comes from the drain wait below, not from this interval.
 */
export const YIELD_EVERY_ROWS = 20;
/**
 * Queued sheet XML above which we wait for the archive to take it; within a wide range the value
 * made no difference (docs/performance.md).
 */
export const HIGH_WATER_BYTES = 1024 * 1024;

export interface PacerStats {
  /** Sheet XML waiting for the archive now, and the most it ever was. */
  readonly bufferedBytes: number;
  readonly peakBufferedBytes: number;
  /** How many times the writer waited for the archive or the destination. */
  readonly drainWaits: number;
}

export class WritePacer {
  private backlog: SheetBacklog | undefined;
  private rowsSinceYield = 0;
  private peak = 0;
  private waits = 0;

  constructor(
    private readonly sink: Writable,
    private readonly failure: WriteFailure,
  ) {}

  /** Follows the sheet being written now. */
  follow(sheet: XlsxSheet): void {
    this.backlog = sheet.backlog();
  }

  get stats(): PacerStats {
    return { bufferedBytes: this.buffered(), peakBufferedBytes: this.peak, drainWaits: this.waits };
  }

  /** After each committed row: a promise to await every YIELD_EVERY_ROWS rows, else undefined. */
  afterRow(): Promise<void> | undefined {
    if (++this.rowsSinceYield < YIELD_EVERY_ROWS) return undefined;
    this.rowsSinceYield = 0;
    return this.pause();
  }

  /** Yields, and waits while the archive or the destination is behind. */
  async pause(): Promise<void> {
    this.failure.throwIfFailed();
    const buffered = this.buffered();
    if (buffered > this.peak) this.peak = buffered;
    try {
      if (this.backlog !== undefined && buffered > HIGH_WATER_BYTES) {
        this.waits++;
        await this.backlog.drained(this.failure.signal);
      } else {
        await nextTurn(undefined, { signal: this.failure.signal });
      }
      if (this.sink.writableNeedDrain) {
        this.waits++;
        await once(this.sink, 'drain', { signal: this.failure.signal });
      }
    } catch (error) {
      this.failure.rethrow(error);
    }
  }

  private buffered(): number {
    return this.backlog?.bytes() ?? 0;
  }
}
