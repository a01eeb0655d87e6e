// Where every batch goes after the pipeline: the fan-out hands it to each output in turn — the
// table writers and the change recorder — and later ends them all. The outputs are peers behind
// TableOutput, so one more (a workbook per division, routed by division id) is one more member,
// and runExport does not change.
//
// Each output has the batch before the next gets it, and they end in the same order: an output
// that writes into another's file (ShiftRowsOutput into shifts.csv and the workbook) comes before
// the one that ends that file. Awaiting each in turn also lets a slow file hold the report back
// instead of letting batches pile up in memory.

import type { ExportBatch, ExportEnding, TableOutput } from './table-output.js';

export class BatchFanOut implements TableOutput {
  readonly #outputs: readonly TableOutput[];

  constructor(outputs: readonly TableOutput[]) {
    this.#outputs = outputs;
  }

  async write(batch: ExportBatch): Promise<void> {
    for (const output of this.#outputs) await output.write(batch);
  }

  async drain(): Promise<void> {
    for (const output of this.#outputs) await output.drain?.();
  }

  async finish(ending: ExportEnding): Promise<void> {
    for (const output of this.#outputs) await output.finish(ending);
  }

  /** Every output is told, whatever one of them throws: the export's error is the one that counts. */
  async abort(error: unknown): Promise<void> {
    for (const output of this.#outputs) await output.abort(error).catch(() => undefined);
  }
}
