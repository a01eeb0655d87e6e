// The statistics' budget an export core hands on (ExportCore.groupMemory), against the sandbox over
// HTTP: with export threads, what the threads hold is measured with the export's own thread, so an
// export split by division, whose divisions' rows are worked on the same threads, bounds them too.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { openExportCore } from '../../src/export/export-core.js';
import type { TableOutput } from '../../src/export/table-output.js';
import { divisionDirectory } from '../../src/pipeline/enrich.js';
import type { GroupMemory } from '../../src/pipeline/group-memory.js';
import { TempFolder } from '../../src/temp-file.js';
import { WfmClient } from '../../src/wfm/wfm-client.js';
import { startTestSandbox, TEST_SANDBOX_END_DATE } from '../support/sandbox.js';
import { tempFolderForTest } from '../support/temp-folder.js';
import { testWfmConfig } from '../wfm/wfm-test-support.js';

const PERIOD = { from: '2024-03-25', to: TEST_SANDBOX_END_DATE };
/** What the test's gauge says the export's own thread holds. */
const OWN_BYTES = 1_000;

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 3_000 });
});

afterAll(async () => {
  await sandbox?.close();
});

/** Takes every batch and keeps nothing: only the threads' answers matter here. */
const discard: TableOutput = {
  write: () => Promise.resolve(),
  finish: () => Promise.resolve(),
  abort: () => Promise.resolve(),
};

describe('the budget of an export worked on export threads', () => {
  for (const split of [undefined, 'division'] as const) {
    it(`counts what the threads hold (${split === undefined ? 'whole' : 'split by division'})`, async () => {
      const source = new WfmClient(testWfmConfig(sandbox.url), { reportBatchBytes: 16 * 1024 });
      const groupMemory: GroupMemory = {
        budgetBytes: Number.MAX_SAFE_INTEGER,
        temp: new TempFolder(tempFolderForTest('core-budget-')),
        gauge: { measure: () => OWN_BYTES, every: 1 },
      };
      const core = openExportCore(source, {
        period: PERIOD,
        formats: ['csv', 'xlsx'],
        filter: undefined,
        split,
        divisions: divisionDirectory(await source.listDivisions({})),
        groupMemory,
        settings: {
          csvDelimiter: ',',
          csvDecimal: '.',
          csvCompression: 'none',
          csvBom: true,
          matchRateThreshold: 0.8,
          sourceBaseUrl: 'http://wfm.example',
          threads: 2,
        },
      });
      try {
        const measure = core.groupMemory?.gauge?.measure;
        expect(measure).toBeDefined();
        expect(core.groupMemory?.temp).toBe(groupMemory.temp);
        await core.stream(discard, { period: PERIOD, signal: undefined, report: () => undefined });
        const threads = core.threads?.heldBytes() ?? 0;
        // A thread that parsed cuts holds their strings and buffers: megabytes, never nothing.
        expect(threads).toBeGreaterThan(100_000);
        expect(measure?.()).toBe(OWN_BYTES + threads);
      } finally {
        await core.close();
      }
    });
  }
});
