import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import { GroupAccumulator } from '../../src/pipeline/group-accumulator.js';
import { NO_DISTANCE, PendingDistances, WIDE_DISTANCE } from '../../src/pipeline/pending-distances.js';
import { referenceStats } from './support/reference-stats.js';
import { shiftRow } from './support/shift-rows.js';

const BASE = shiftRow() as unknown as FinishedShift;

function shift(
  group: number,
  start: number | null,
  finish: number | null,
  startMatch: boolean | null,
): FinishedShift {
  return {
    ...BASE,
    shop_id: group,
    start_location_distance: start,
    finish_location_distance: finish,
    start_location_match: startMatch,
    finish_location_match: finish === null ? null : finish < 100,
  };
}

// Mostly small distances (validated integers); now and then one the slab cannot hold (kept in the
// group's wide list) or one at its markers, small enough that the float reference stays exact.
const distance = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 400 }) },
  { weight: 2, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      WIDE_DISTANCE - 1,
      WIDE_DISTANCE,
      NO_DISTANCE,
      NO_DISTANCE + 1,
      -1,
      2 ** 31,
      -(2 ** 33),
      2 ** 33,
    ),
  },
);
const group = fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 2 }));
const row = fc.tuple(group, distance, distance, fc.constantFrom(true, false, null));

describe('group accumulator', () => {
  it('equals the reference for groups that share one slab, small and spilled alike (property)', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8_000, size: 'max' }), (rows) => {
        const slab = new PendingDistances();
        const groups = [new GroupAccumulator(slab), new GroupAccumulator(slab), new GroupAccumulator(slab)];
        const shifts = rows.map(([group, start, finish, match]) => shift(group, start, finish, match));
        for (const s of shifts) groups[s.shop_id]!.add(s);
        groups.forEach((group, index) => {
          expect(group.stats()).toEqual(referenceStats(shifts.filter((s) => s.shop_id === index)));
        });
      }),
      { numRuns: 25 },
    );
  });

  it('keeps counting after its statistics were read', () => {
    const group = new GroupAccumulator(new PendingDistances());
    const shifts: FinishedShift[] = [];
    for (let i = 0; i < 9_000; i++) {
      const s = shift(0, (i * 37) % 1_000, i % 3 === 0 ? null : i, i % 2 === 0);
      group.add(s);
      shifts.push(s);
      if (i === 10 || i === 5_000) expect(group.stats()).toEqual(referenceStats(shifts));
    }
    expect(group.stats()).toEqual(referenceStats(shifts));
  });

  it('reuses the blocks of spilled groups for the next ones', () => {
    const slab = new PendingDistances();
    for (let g = 0; g < 20; g++) {
      const group = new GroupAccumulator(slab);
      for (let i = 0; i < 4_100; i++) group.add(shift(0, i, i, true));
    }
    // 4,100 pairs spill at 4,096; each group borrowed 256 blocks and gave them back.
    expect(slab.allocatedBlocks).toBe(256);
  });
});
