// The export's main loop: the report read from the upstream batch by batch, each batch through the
// pipeline's stages and on to the outputs (batch-fan-out.ts), the progress reported after each and
// the abort signal checked between them. The stages run synchronously per batch; writing (and
// waiting for slow files) happens between batches.

import { upstreamWindow, type Period } from '../domain/period.js';
import type { ShiftPipeline } from '../pipeline/shift-pipeline.js';
import type { ReadProgress } from '../wfm/report-reader.js';
import type { ProgressReport } from './progress.js';
import type { ShiftSource } from './shift-source.js';
import type { TableOutput } from './table-output.js';
import { throwIfAborted } from './throw-if-aborted.js';
import type { ShiftThreads } from './shift-threads.js';
import type { WorkedCutPipeline } from './worked-cut-pipeline.js';

export interface StreamOptions {
  /** The period whose report is read (the upstream's window around it). */
  readonly period: Period;
  readonly signal: AbortSignal | undefined;
  readonly report: ProgressReport;
}

/**
 * Streams the whole report into `outputs`, its rows worked on export threads (`threads`) and only
 * what needs the whole report done here (`pipeline`); how the read went.
 */
export async function streamWorkedCuts(
  read: Required<Pick<ShiftSource, 'readParsedShifts'>>,
  threads: ShiftThreads,
  pipeline: WorkedCutPipeline,
  outputs: TableOutput,
  { period, signal, report }: StreamOptions,
): Promise<ReadProgress | undefined> {
  let upstream: ReadProgress | undefined;
  const options = { window: upstreamWindow(period), signal, onProgress: (p: ReadProgress) => (upstream = p) };
  for await (const ranges of read.readParsedShifts(threads, options)) {
    const { worked, rejected, taken } = pipeline.take(ranges);
    await outputs.write({ shifts: [], rejected, worked });
    threads.reuse(taken);
    // A statistics thread of their own may lag a few batches, never more.
    await pipeline.caughtUp();
    const counts = pipeline.counts;
    report({ rows: counts.fetched, exported: counts.exported, rejected: counts.rejected });
    throwIfAborted(signal);
  }
  // The threads render the last batches' sheet rows: written before they end.
  await outputs.drain?.();
  return upstream;
}

/** Streams the whole report into `outputs`; how the read went (undefined: it never started). */
export async function streamBatches(
  source: ShiftSource,
  pipeline: ShiftPipeline,
  outputs: TableOutput,
  { period, signal, report }: StreamOptions,
): Promise<ReadProgress | undefined> {
  let upstream: ReadProgress | undefined;
  const read = { window: upstreamWindow(period), signal, onProgress: (p: ReadProgress) => (upstream = p) };
  for await (const batch of source.readShifts(read)) {
    await outputs.write(pipeline.processBatch(batch));
    const counts = pipeline.counts;
    report({ rows: counts.fetched, exported: counts.exported, rejected: counts.rejected });
    throwIfAborted(signal);
  }
  return upstream;
}
