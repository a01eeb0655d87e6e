// Past the memory budget the user and shop groups spill to sorted runs on disk; the summaries must
// be exactly those of the in-memory aggregate, for any rows and any budget.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import type { ExportSummaries } from '../../src/domain/summary.js';
import { ShiftAggregator } from '../../src/pipeline/aggregate.js';
import type { MemoryGauge } from '../../src/pipeline/group-memory.js';
import { GroupSpillError } from '../../src/pipeline/spill-error.js';
import { TempFolder } from '../../src/temp-file.js';
import { recordOf } from './support/shift-records.js';
import { shiftRow } from './support/shift-rows.js';

function record(patch: Record<string, unknown>): ShiftRecord {
  return recordOf(shiftRow(patch));
}

const match = fc.constantFrom(true, false, null);
// Small and wide distances (past the slab's 2 bytes), and many repeats.
const distance = fc.option(
  fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 200_000 }), fc.constant(42)),
  { nil: null },
);
// 'İstanbul' folds to a longer text, '𝔄' is a surrogate pair: the sort compares code units.
const name = fc.constantFrom(
  'alpha',
  'Alpha',
  'beta',
  'Émile',
  'zeta',
  'Ярославль',
  '',
  'İstanbul',
  'istanbul',
  '𝔄lpha',
);
const rowPatch = fc.record({
  shop_id: fc.integer({ min: 1, max: 15 }),
  shop_sap: name,
  shop_locality: fc.option(name, { nil: null }),
  region_name: name,
  user_id: fc.integer({ min: 1, max: 40 }),
  user_login: name,
  user_display_name: name,
  start_location_match: match,
  finish_location_match: match,
  start_location_distance: distance,
  finish_location_distance: distance,
  duration: fc.integer({ min: 0, max: 28_800 }),
  auto_finished: fc.boolean(),
});

let dir: string;
let temp: TempFolder;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'group-spill-test-'));
  temp = new TempFolder(dir);
});

afterEach(() => {
  temp.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function summarise(
  records: readonly ShiftRecord[],
  budgetBytes?: number,
  gauge?: MemoryGauge,
): ExportSummaries {
  const aggregator =
    budgetBytes === undefined
      ? new ShiftAggregator(new Map())
      : new ShiftAggregator(new Map(), { budgetBytes, temp, ...(gauge === undefined ? {} : { gauge }) });
  for (const r of records) aggregator.add(r);
  return aggregator.finish();
}

function plain(s: ExportSummaries): unknown {
  return { ...s, shops: [...s.shops], users: [...s.users] };
}

describe('groups past the memory budget', () => {
  it('give the same summaries as in memory, for random rows and budgets (property)', () => {
    fc.assert(
      fc.property(
        fc.array(rowPatch, { maxLength: 150, size: 'max' }),
        fc.integer({ min: 1, max: 20_000 }),
        (patches, budgetBytes) => {
          const records = patches.map((patch, i) => record({ ...patch, id: i + 1 }));
          const spilled = summarise(records, budgetBytes);
          expect(plain(spilled)).toEqual(plain(summarise(records)));
          // Read back as often as a writer needs.
          expect([...spilled.users]).toEqual([...spilled.users]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('give the same summaries as in memory when the thread is measured over the budget (property)', () => {
    // The groups' estimate stays far below the budget; the gauge says the thread is past it, every
    // few rows (and summaries), so the groups and the summaries go to runs on measured memory alone.
    fc.assert(
      fc.property(
        fc.array(rowPatch, { maxLength: 150, size: 'max' }),
        fc.integer({ min: 1, max: 8 }),
        (patches, every) => {
          const records = patches.map((patch, i) => record({ ...patch, id: i + 1 }));
          let measured = 0;
          const gauge = { measure: () => (measured++, Number.MAX_VALUE), every };
          // 1,000 bytes: a sixteenth is about one group, so a spill is worth it from the first row.
          const spilled = summarise(records, 16_000, gauge);
          expect(plain(spilled)).toEqual(plain(summarise(records)));
          if (records.length > 2 * every) expect(measured).toBeGreaterThan(0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('spills on measured memory, not on the estimate alone', () => {
    const records = Array.from({ length: 3_000 }, (_, i) => record({ id: i + 1, user_id: i }));
    // ~1.2 MB of estimate: past a sixteenth of 16 MB after ~2,500 users, never past 16 MB.
    const over = { measure: () => Number.MAX_VALUE, every: 100 };
    const spilled = summarise(records, 16 << 20, over);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    expect(plain(spilled)).toEqual(plain(summarise(records)));
  });

  it('does not spill on measured memory while the groups hold under a sixteenth of the budget', () => {
    // 3,000 users are ~1.2 MB of estimate, under a sixteenth of 64 MB: spilling them would free
    // too little, however far over the budget the rest of the thread is.
    const records = Array.from({ length: 3_000 }, (_, i) => record({ id: i + 1, user_id: i }));
    const over = { measure: () => Number.MAX_VALUE, every: 1 };
    const summaries = summarise(records, 64 << 20, over);
    expect(readdirSync(dir)).toEqual([]);
    expect(Array.isArray(summaries.users)).toBe(true);
  });

  it('keeps large groups exact across runs (a user with thousands of shifts, spilled often)', () => {
    // User 7 passes 4,096 shifts between two spills (its distances then in flat counts).
    const records = Array.from({ length: 15_000 }, (_, i) =>
      record({
        id: i + 1,
        user_id: i % 3 === 0 ? 100 + i : 7,
        shop_id: i % 5,
        start_location_distance: (i * 7919) % 9_000,
        finish_location_distance: i % 11 === 0 ? null : (i * 104_729) % 70_000,
      }),
    );
    const spilled = summarise(records, 1_000_000);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    expect(plain(spilled)).toEqual(plain(summarise(records)));
  });

  it('writes nothing to disk while the groups fit the budget, and returns arrays', () => {
    const records = Array.from({ length: 200 }, (_, i) => record({ id: i + 1, user_id: i % 10 }));
    const summaries = summarise(records, 1 << 20);
    expect(Array.isArray(summaries.users)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves no temp file once the folder is disposed of', () => {
    const records = Array.from({ length: 500 }, (_, i) => record({ id: i + 1, user_id: i }));
    const summaries = summarise(records, 1_000);
    expect([...summaries.users]).toHaveLength(500);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    temp.dispose();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails with GROUP_SPILL_FAILED, naming the folder, when the temp folder cannot be written', () => {
    const gone = new TempFolder(join(dir, 'missing'));
    const aggregator = new ShiftAggregator(new Map(), { budgetBytes: 1, temp: gone });
    let caught: unknown;
    try {
      aggregator.add(record({ id: 1, user_id: 1 }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GroupSpillError);
    expect((caught as GroupSpillError).code).toBe('GROUP_SPILL_FAILED');
    expect((caught as GroupSpillError).retryable).toBe(true);
    expect((caught as GroupSpillError).message).toContain(join(dir, 'missing'));
  });
});
