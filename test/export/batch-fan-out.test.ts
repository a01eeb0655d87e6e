import { describe, expect, it } from 'vitest';
import type { ExportCounts } from '../../src/domain/export-counts.js';
import type { ExportSummaries } from '../../src/domain/summary.js';
import { BatchFanOut } from '../../src/export/batch-fan-out.js';
import type { ExportBatch, ExportEnding, TableOutput } from '../../src/export/table-output.js';

const BATCH: ExportBatch = { shifts: [], rejected: [] };
const ENDING: ExportEnding = {
  summaries: {} as ExportSummaries,
  counts: {} as ExportCounts,
  changes: {},
};

/** A few turns of the microtask queue: an output that is not done at once. */
async function later(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** An output that notes each call in `events`; `slow`: it notes only after a few turns. */
function output(name: string, events: string[], options: { slow?: boolean; failAbort?: boolean } = {}) {
  const note = async (what: string): Promise<void> => {
    if (options.slow === true) await later();
    events.push(`${name} ${what}`);
  };
  return {
    write: () => note('write'),
    finish: () => note('finish'),
    abort: async () => {
      if (options.failAbort === true) throw new Error(`${name} could not abort`);
      await note('abort');
    },
  } satisfies TableOutput;
}

describe('BatchFanOut', () => {
  it('hands each batch to every output in turn, and ends them in the same order', async () => {
    const events: string[] = [];
    const fanOut = new BatchFanOut([output('a', events, { slow: true }), output('b', events)]);
    await fanOut.write(BATCH);
    await fanOut.write(BATCH);
    await fanOut.finish(ENDING);
    expect(events).toEqual(['a write', 'b write', 'a write', 'b write', 'a finish', 'b finish']);
  });

  it('tells every output of an abort, even when one of them fails to abort', async () => {
    const events: string[] = [];
    const fanOut = new BatchFanOut([output('a', events, { failAbort: true }), output('b', events)]);
    await expect(fanOut.abort(new Error('the upstream went away'))).resolves.toBeUndefined();
    expect(events).toEqual(['b abort']);
  });
});
