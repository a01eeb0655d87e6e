// How an export works the report's rows: on export threads, each cut parsed once there and all its
// per-row work done with it (cut-work.ts, shift-threads.ts), the export's thread keeping only what
// needs the whole report (worked-cut-pipeline.ts); or, with one thread or a source that hands out
// no unparsed cuts, all on the export's thread (shift-pipeline.ts). Both give the same bytes
// (test/export/export-threads.int.test.ts).
//
// Export threads work exports of CSV, Parquet and the workbook; they render the Shifts sheet's
// rows too, from the same parse, once the export's thread has placed them (sheet-rows-work.ts),
// and convert each row's Parquet values (parquet-cells.ts). Split by division, they render each
// row's line for the division spool, whatever the formats. With EXPORT_STATISTICS_THREAD, the
// statistics are counted on a thread of their own, fed the exported rows in report order
// (statistics-thread.ts); the division's own statistics, when split, stay on the export's thread.

import type { ExportCounts } from '../domain/export-counts.js';
import type { ExportFormat } from '../domain/export-format.js';
import type { Period } from '../domain/period.js';
import type { RowFilter } from '../domain/row-filter.js';
import type { ExportSummaries } from '../domain/summary.js';
import type { DivisionDirectory } from '../pipeline/enrich.js';
import { DEFAULT_GAUGE, type GroupMemory } from '../pipeline/group-memory.js';
import { ShiftPipeline } from '../pipeline/shift-pipeline.js';
import type { ReadProgress } from '../wfm/report-reader.js';
import { csvTableOptions } from './csv-tables-output.js';
import type { ExportSettings } from './export-settings.js';
import { ShiftThreads } from './shift-threads.js';
import { StatisticsThread } from './statistics-thread.js';
import type { ShiftSource } from './shift-source.js';
import { streamBatches, streamWorkedCuts, type StreamOptions } from './stream-batches.js';
import type { TableOutput } from './table-output.js';
import { WorkedCutPipeline } from './worked-cut-pipeline.js';

export interface ExportCore {
  /** Streams the whole report into `outputs`; how the read went (undefined: it never started). */
  stream(outputs: TableOutput, options: StreamOptions): Promise<ReadProgress | undefined>;
  readonly counts: ExportCounts;
  /** The summaries of every exported row. */
  finish(): Promise<ExportSummaries>;
  /**
   * The export threads, when the rows are worked there: an export split by division works each
   * division's spool on them too (division-split.ts), so they end only after the divisions.
   */
  readonly threads: ShiftThreads | undefined;
  /**
   * The statistics' budget (EXPORT_MEMORY_MB) as this export measures it: with export threads, what
   * they hold counts too. A split's divisions, worked on the same threads, take it for theirs.
   */
  readonly groupMemory: GroupMemory | undefined;
  /** The statistics are counted on a thread of their own (EXPORT_STATISTICS_THREAD with export threads). */
  readonly statisticsThread: boolean;
  /**
   * The report is streamed: the export threads end now, their memory free for the summaries, unless
   * the export is split by division (its divisions are worked on the same threads). A statistics
   * thread goes on until finish().
   */
  streamed(): Promise<void>;
  /** Ends every thread of the export, however the export ended. */
  close(): Promise<void>;
}

export interface ExportCoreOptions {
  readonly period: Period;
  readonly formats: readonly ExportFormat[];
  readonly filter: RowFilter | undefined;
  readonly split: 'division' | undefined;
  readonly divisions: DivisionDirectory;
  readonly groupMemory: GroupMemory | undefined;
  readonly settings: ExportSettings;
}

export function openExportCore(source: ShiftSource, options: ExportCoreOptions): ExportCore {
  const { period, formats, filter, divisions, groupMemory, settings } = options;
  const threads = settings.threads ?? 1;
  const readParsedShifts = source.readParsedShifts?.bind(source);
  const split = options.split === 'division';
  // Every format is rendered there. Split by division, the threads render the report's rows only
  // as the spool's lines; each division's files are written from the spool afterwards, its lines
  // worked on the same threads into every format asked for (division-split.ts).
  const onThreads = threads > 1 && readParsedShifts !== undefined && formats.length > 0;
  if (!onThreads || readParsedShifts === undefined) {
    const pipeline = new ShiftPipeline({
      period,
      divisions,
      filter,
      ...(groupMemory === undefined ? {} : { groupMemory }),
    });
    return {
      stream: (outputs, stream) => streamBatches(source, pipeline, outputs, stream),
      get counts() {
        return pipeline.counts;
      },
      finish: () => Promise.resolve(pipeline.finish()),
      threads: undefined,
      groupMemory,
      statisticsThread: false,
      streamed: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  const sheetRows = !split && formats.includes('xlsx');
  const workers = new ShiftThreads(threads, {
    period,
    divisions,
    filter,
    csv: !split && formats.includes('csv') ? csvTableOptions(settings) : undefined,
    sheetRows,
    spoolLines: split,
    parquet: !split && formats.includes('parquet'),
    division: split
      ? {
          csv: formats.includes('csv') ? csvTableOptions(settings) : undefined,
          sheetRows: formats.includes('xlsx'),
          parquet: formats.includes('parquet'),
        }
      : undefined,
  });
  const statistics =
    settings.statisticsThread === true
      ? new StatisticsThread(divisions, groupMemory, () => workers.heldBytes())
      : undefined;
  // The budget bounds every thread of the export: the statistics see the export threads' memory
  // too, and the statistics thread's, when they have one.
  const gauge = groupMemory?.gauge ?? DEFAULT_GAUGE;
  const memory: GroupMemory | undefined = groupMemory && {
    ...groupMemory,
    gauge: {
      measure: () => gauge.measure() + workers.heldBytes() + (statistics?.heldBytes() ?? 0),
      every: gauge.every,
    },
  };
  const pipeline = new WorkedCutPipeline({
    divisions,
    groupMemory: memory,
    statistics,
    filtered: filter !== undefined,
    sheetRows: sheetRows ? workers : undefined,
    spoolLines: split,
  });
  return {
    stream: (outputs, stream) => streamWorkedCuts({ readParsedShifts }, workers, pipeline, outputs, stream),
    get counts() {
      return pipeline.counts;
    },
    finish: () => pipeline.finish(),
    threads: workers,
    groupMemory: memory,
    statisticsThread: statistics !== undefined,
    streamed: () => (split ? Promise.resolve() : workers.close()),
    close: async () => {
      await statistics?.close();
      await workers.close();
    },
  };
}
