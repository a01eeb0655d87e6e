// The running statistics of one group of shifts (a division, region, shop, user, or all of them):
// counters and the two distance distributions, updated per row without allocating.
//
// Most groups are small and many (users, shops), and a row touches one of each at random, so the
// cost per row is memory traffic, not arithmetic. A small group therefore keeps its distances as
// (start, finish) int32 pairs in the aggregate's shared PairSlab (at most SPILL_AT pairs, 32 KiB),
// and only a group that grows past that (or meets a distance beyond int32) moves them into two
// DistanceDistributions, which from then on take its distances directly (by then in flat counts).
// The statistics of a small group are read by sorting its pairs in shared scratch arrays.

import type { FinishedShift } from '../domain/finished-shift.js';
import type { GroupStats } from '../domain/summary.js';
import { DistanceDistribution, percentileInc } from './distance-distribution.js';
import { BLOCK_PAIRS, fitsSlab, NO_DISTANCE, type PairSlab } from './pair-slab.js';

const SPILL_AT = 4_096;
/** Sort space for the statistics of small groups (synchronous, one group at a time). */
const startScratch = new Float64Array(SPILL_AT);
const finishScratch = new Float64Array(SPILL_AT);
const NO_BLOCK = -1;

/**
 * Sorts values[0..n) ascending: insertion sort for the many tiny groups (the built-in sort has a
 * fixed cost per call that dominates there), the built-in one beyond. Measured at 3M rows, a
 * hand-written quicksort was no faster than the built-in sort for the larger groups.
 */
function sortPrefix(values: Float64Array, n: number): void {
  if (n > 48) {
    values.subarray(0, n).sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const value = values[i]!;
    let j = i - 1;
    while (j >= 0 && values[j]! > value) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = value;
  }
}

export class GroupAccumulator {
  private shifts = 0;
  private durationSeconds = 0;
  private startChecked = 0;
  private startMatched = 0;
  private finishChecked = 0;
  private finishMatched = 0;
  private bothChecked = 0;
  private bothMatched = 0;
  private noLocation = 0;
  private autoFinished = 0;
  /** The chain of pending pairs in the slab: first and last block, and how many pairs. */
  private firstBlock = NO_BLOCK;
  private lastBlock = NO_BLOCK;
  private pendingPairs = 0;
  private startDistances: DistanceDistribution | null = null;
  private finishDistances: DistanceDistribution | null = null;

  constructor(private readonly slab: PairSlab) {}

  add(shift: FinishedShift): void {
    this.shifts++;
    this.durationSeconds += shift.duration;
    const start = shift.start_location_match;
    const finish = shift.finish_location_match;
    if (start !== null) {
      this.startChecked++;
      if (start) this.startMatched++;
    }
    if (finish !== null) {
      this.finishChecked++;
      if (finish) this.finishMatched++;
    }
    if (start !== null && finish !== null) {
      this.bothChecked++;
      if (start && finish) this.bothMatched++;
    } else if (start === null && finish === null) {
      this.noLocation++;
    }
    if (shift.auto_finished) this.autoFinished++;
    const startDistance = shift.start_location_distance;
    const finishDistance = shift.finish_location_distance;
    if (startDistance === null && finishDistance === null) return;
    if (
      this.startDistances === null &&
      (startDistance === null || fitsSlab(startDistance)) &&
      (finishDistance === null || fitsSlab(finishDistance))
    ) {
      this.addPending(startDistance ?? NO_DISTANCE, finishDistance ?? NO_DISTANCE);
      return;
    }
    this.spill();
    if (startDistance !== null) this.startDistances!.add(startDistance);
    if (finishDistance !== null) this.finishDistances!.add(finishDistance);
  }

  stats(): GroupStats {
    const starts = this.startDistances;
    const finishes = this.finishDistances;
    if (starts !== null && finishes !== null) {
      return this.statsWith(
        starts.median(),
        starts.percentileInc(9, 10),
        finishes.median(),
        finishes.percentileInc(9, 10),
      );
    }
    let startCount = 0;
    let finishCount = 0;
    this.slab.forEachPair(this.firstBlock, this.pendingPairs, (start, finish) => {
      if (start !== NO_DISTANCE) startScratch[startCount++] = start;
      if (finish !== NO_DISTANCE) finishScratch[finishCount++] = finish;
    });
    sortPrefix(startScratch, startCount);
    sortPrefix(finishScratch, finishCount);
    const startAt = (rank: number): number => startScratch[rank]!;
    const finishAt = (rank: number): number => finishScratch[rank]!;
    return this.statsWith(
      percentileInc(startCount, 1, 2, startAt),
      percentileInc(startCount, 9, 10, startAt),
      percentileInc(finishCount, 1, 2, finishAt),
      percentileInc(finishCount, 9, 10, finishAt),
    );
  }

  private statsWith(
    startDistanceMedian: number | null,
    startDistanceP90: number | null,
    finishDistanceMedian: number | null,
    finishDistanceP90: number | null,
  ): GroupStats {
    return {
      shifts: this.shifts,
      durationSeconds: this.durationSeconds,
      startChecked: this.startChecked,
      startMatched: this.startMatched,
      finishChecked: this.finishChecked,
      finishMatched: this.finishMatched,
      bothChecked: this.bothChecked,
      bothMatched: this.bothMatched,
      noLocation: this.noLocation,
      startDistanceMedian,
      startDistanceP90,
      finishDistanceMedian,
      finishDistanceP90,
      autoFinished: this.autoFinished,
    };
  }

  private addPending(start: number, finish: number): void {
    const slot = this.pendingPairs % BLOCK_PAIRS;
    if (slot === 0) {
      this.lastBlock = this.slab.newBlock(this.lastBlock);
      if (this.firstBlock === NO_BLOCK) this.firstBlock = this.lastBlock;
    }
    this.slab.setPair(this.lastBlock, slot, start, finish);
    if (++this.pendingPairs >= SPILL_AT) this.spill();
  }

  /** Moves the pending pairs into the two distributions, which from now on take every distance. */
  private spill(): void {
    // Past SPILL_AT pairs the group is large: flat counts from the start. Spilled early by a
    // distance beyond int32, it may stay small: then only counts it when it grows.
    const large = this.pendingPairs >= SPILL_AT;
    const starts = (this.startDistances ??= new DistanceDistribution(large));
    const finishes = (this.finishDistances ??= new DistanceDistribution(large));
    if (this.pendingPairs === 0) return;
    this.slab.forEachPair(this.firstBlock, this.pendingPairs, (start, finish) => {
      if (start !== NO_DISTANCE) starts.add(start);
      if (finish !== NO_DISTANCE) finishes.add(finish);
    });
    this.slab.release(this.firstBlock);
    this.firstBlock = NO_BLOCK;
    this.lastBlock = NO_BLOCK;
    this.pendingPairs = 0;
  }
}
