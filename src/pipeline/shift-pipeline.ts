// The stages composed: raw rows in batches → validate → localise → window → dedup → enrich →
// aggregate, synchronously per batch (the caller owns reading, writing and backpressure), each
// stage returning its result. The counts always add up:
// fetched = exported + rejected + duplicates + outside_window (+ filtered_out, when the export has
// a filter: scope-filter.ts; without one the counts have no filtered_out, as before filters).
//
// Dedup runs after the window: only the period's ids are remembered, and a duplicate outside the
// period is counted once, as outside_window. A rejected row does not claim its id, so a later valid
// copy of it is still exported.
//
// Once a batch is validated, its texts (which validate reads for a row that is not clean) are
// released (RowTexts.release).

import type { ExportCounts } from '../domain/export-counts.js';
import type { Period } from '../domain/period.js';
import type { RawRows } from '../domain/raw-rows.js';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { RowFilter } from '../domain/row-filter.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import { ShiftAggregator } from './aggregate.js';
import type { GroupMemory } from './group-spill.js';
import { DuplicateFilter } from './dedup.js';
import { enrichShift, type DivisionDirectory } from './enrich.js';
import { localiseShift } from './localise.js';
import { ScopeFilter } from './scope-filter.js';
import { isRejected, validateShift } from './validate.js';
import { BusinessDayWindow } from './window.js';

/** What one batch gave, each list in row order. */
export interface BatchResult {
  /** The exported records. */
  readonly shifts: readonly ShiftRecord[];
  readonly rejected: readonly RejectedRow[];
}

export interface ShiftPipelineOptions {
  readonly period: Period;
  readonly divisions: DivisionDirectory;
  /** The budget of the user and shop groups, and where they spill; none: all in memory. */
  readonly groupMemory?: GroupMemory;
  /** Only these divisions, regions, shops; the others are counted as filtered_out. */
  readonly filter?: RowFilter | undefined;
}

export class ShiftPipeline {
  private readonly window: BusinessDayWindow;
  private readonly dedup = new DuplicateFilter();
  private readonly divisions: DivisionDirectory;
  private readonly aggregator: ShiftAggregator;
  private readonly scope: ScopeFilter | undefined;
  private fetched = 0;
  private exported = 0;
  private rejected = 0;
  private flagged = 0;

  constructor(options: ShiftPipelineOptions) {
    this.window = new BusinessDayWindow(options.period);
    this.divisions = options.divisions;
    this.aggregator = new ShiftAggregator(options.divisions, options.groupMemory);
    this.scope = options.filter === undefined ? undefined : new ScopeFilter(options.filter);
  }

  processBatch(rawRows: RawRows): BatchResult {
    const shifts: ShiftRecord[] = [];
    const rejected: RejectedRow[] = [];
    const texts = rawRows.texts;
    for (let i = 0; i < rawRows.length; i++) {
      const valid = validateShift(rawRows[i], texts, i);
      if (isRejected(valid)) {
        rejected.push(valid);
        continue;
      }
      if (this.scope !== undefined && !this.scope.admits(valid.shift)) continue;
      const localised = localiseShift(valid);
      if (!this.window.admits(localised) || !this.dedup.admits(localised)) continue;
      const record = enrichShift(localised, this.divisions);
      this.aggregator.add(record);
      if (record.qualityFlags !== '') this.flagged++;
      shifts.push(record);
    }
    texts?.release();
    this.fetched += rawRows.length;
    this.exported += shifts.length;
    this.rejected += rejected.length;
    return { shifts, rejected };
  }

  get counts(): ExportCounts {
    return {
      fetched: this.fetched,
      exported: this.exported,
      rejected: this.rejected,
      duplicates: this.dedup.duplicates,
      outside_window: this.window.outside,
      flagged: this.flagged,
      ...(this.scope === undefined ? {} : { filtered_out: this.scope.outside }),
    };
  }

  /** The summaries of every exported row so far. */
  finish(): ExportSummaries {
    return this.aggregator.finish();
  }
}
