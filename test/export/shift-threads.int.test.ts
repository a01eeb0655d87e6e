// The export threads on their own: a cut worked on a thread is what the export's thread makes of
// it, a cut that is not JSON comes back as the 'malformed' error a wrong guess is told by, and the
// threads say what they hold, for EXPORT_MEMORY_MB.

import { afterEach, describe, expect, it } from 'vitest';
import { CutWorker, type CutWorkSetup } from '../../src/export/cut-work.js';
import { ShiftThreads } from '../../src/export/shift-threads.js';
import { JsonArrayScanError } from '../../src/wfm/json-array-scan-error.js';
import type { ScannedCut } from '../../src/wfm/scanned-cut.js';

const SETUP: CutWorkSetup = {
  period: { from: '2024-03-01', to: '2024-03-31' },
  divisions: new Map(),
  filter: undefined,
  csv: { delimiter: ',', decimal: '.', bom: false },
};

const ROW = {
  id: 7,
  user_id: 1,
  user_login: 'ivanova',
  user_org_level: 'SHOP',
  user_position: 'Cashier',
  user_display_name: 'Ivanova',
  division_id: 1,
  division_name: 'North',
  region_id: 2,
  region_name: 'Lakes',
  shop_id: 3,
  shop_sap: 'S3',
  shop_locality: null,
  start_time: '2024-03-05T06:00:00',
  start_time_offset: 180,
  finish_time: '2024-03-05T14:00:00',
  finish_time_offset: 180,
  duration: 28800,
  start_location_distance: 12,
  start_location_match: true,
  finish_location_distance: null,
  finish_location_match: null,
  auto_finished: false,
};

function cutOf(text: string): ScannedCut {
  return { bytes: Buffer.from(text), start: 1, end: text.length - 1, guessed: true };
}

let threads: ShiftThreads | undefined;
afterEach(async () => {
  await threads?.close();
  threads = undefined;
});

describe('ShiftThreads', () => {
  it('works a cut on a thread as the export thread works it, and reports what the thread holds', async () => {
    const text = JSON.stringify([ROW, { ...ROW, id: 8 }, { id: 'x' }]);
    const here = new CutWorker(SETUP).work(cutOf(text));
    threads = new ShiftThreads(2, SETUP);
    expect(threads.heldBytes()).toBe(0);
    const there = await threads.parse(cutOf(text));
    const bytes = (array: Uint8Array | undefined): Buffer => Buffer.from(array ?? []);
    expect(here.facts.length).toBeGreaterThan(0);
    expect({ ...there.batch, csv: bytes(there.batch.csv), hashes: bytes(there.batch.hashes) }).toEqual({
      ...here,
      csv: bytes(here.csv),
      hashes: bytes(here.hashes),
    });
    expect(Array.from(there.ids)).toEqual([7, 8, Number.NaN]);
    expect(there.batch.rejected).toHaveLength(1);
    expect(threads.heldBytes()).toBeGreaterThan(0);
    await threads.close();
    expect(threads.heldBytes()).toBe(0);
  });

  it('answers a cut that is not JSON with the malformed error a wrong guess is known by', async () => {
    threads = new ShiftThreads(2, SETUP);
    const wrong = threads.parse(cutOf('[{"comment":"a}]'));
    await expect(wrong).rejects.toBeInstanceOf(JsonArrayScanError);
    await expect(wrong).rejects.toMatchObject({ kind: 'malformed' });
    // The thread goes on: the next cut is worked.
    expect((await threads.parse(cutOf(JSON.stringify([ROW])))).ids[0]).toBe(7);
  });
});
