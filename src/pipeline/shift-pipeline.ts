// The stages composed: raw rows in batches → validate → localise → window → dedup → enrich →
// aggregate, synchronously per batch (the caller owns reading, writing and backpressure). The
// counts always add up: fetched = exported + rejected + duplicates + outside_window.
//
// Dedup runs after the window: only the period's ids are remembered, and a duplicate outside the
// period is counted once, as outside_window. A rejected row does not claim its id, so a later valid
// copy of it is still exported.
//
// A row whose bytes are not UTF-8 is validated against its text (validateShiftByText); once the
// batch is validated its texts are released (RowTexts.release).

import type { ExportCounts } from '../domain/export-counts.js';
import type { Period } from '../domain/period.js';
import type { RawRows } from '../domain/raw-rows.js';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import { ShiftAggregator } from './aggregate.js';
import { DuplicateFilter } from './dedup.js';
import { enrichShift, type DivisionDirectory } from './enrich.js';
import { isRejected, validateShift, validateShiftByText } from './validate.js';
import { businessDayWindow, isInWindow, type BusinessDayWindow } from './window.js';

/** Where a batch's results go; called synchronously, in row order. */
export interface ShiftSink {
  shift(record: ShiftRecord): void;
  rejected(row: RejectedRow): void;
}

export interface ShiftPipelineOptions {
  readonly period: Period;
  readonly divisions: DivisionDirectory;
}

export class ShiftPipeline {
  private readonly window: BusinessDayWindow;
  private readonly divisions: DivisionDirectory;
  private readonly dedup = new DuplicateFilter();
  private readonly aggregator: ShiftAggregator;
  private fetched = 0;
  private exported = 0;
  private rejected = 0;
  private duplicates = 0;
  private outsideWindow = 0;
  private flagged = 0;

  constructor(options: ShiftPipelineOptions) {
    this.window = businessDayWindow(options.period);
    this.divisions = options.divisions;
    this.aggregator = new ShiftAggregator(options.divisions);
  }

  processBatch(rawRows: RawRows, sink: ShiftSink): void {
    const texts = rawRows.texts;
    const allUtf8 = texts === undefined || texts.allUtf8;
    for (let i = 0; i < rawRows.length; i++) {
      this.fetched++;
      const result =
        allUtf8 || texts.isUtf8(i)
          ? validateShift(rawRows[i], texts, i)
          : validateShiftByText(rawRows[i], texts, i);
      if (isRejected(result)) {
        this.rejected++;
        sink.rejected(result);
        continue;
      }
      if (!isInWindow(result, this.window)) {
        this.outsideWindow++;
        continue;
      }
      if (!this.dedup.firstSighting(result.shift.id)) {
        this.duplicates++;
        continue;
      }
      enrichShift(result, this.divisions);
      this.aggregator.add(result);
      this.exported++;
      if (result.qualityFlags !== '') this.flagged++;
      sink.shift(result);
    }
    texts?.release();
  }

  get counts(): ExportCounts {
    return {
      fetched: this.fetched,
      exported: this.exported,
      rejected: this.rejected,
      duplicates: this.duplicates,
      outside_window: this.outsideWindow,
      flagged: this.flagged,
    };
  }

  /** The summaries of every exported row so far. */
  finish(): ExportSummaries {
    return this.aggregator.finish();
  }
}
