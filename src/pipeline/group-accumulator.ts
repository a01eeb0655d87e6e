// The running statistics of one group of shifts (a division, region, shop, user, or all of them):
// counters and the two distance distributions, updated per row without allocating.
//
// Most groups are small and many (users, shops), and a row touches one of each at random, so the
// cost per row is memory traffic, not arithmetic. A small group therefore keeps its distances as
// (start, finish) uint16 pairs in the aggregate's shared PendingDistances (at most SPILL_AT pairs,
// 16 KiB), and only a group that grows past that moves them into two DistanceDistributions, which
// from then on take its distances directly (by then in flat counts). A distance the slab cannot hold
// (65,534 or more, or negative; distances are validated integers) is marked WIDE_DISTANCE there
// and kept, in order, in the group's own `wide` list. The statistics of a small group are read by
// copying its pairs into shared scratch arrays and selecting there the ranks the percentiles need.

import type { FinishedShift } from 'wfm-contract/finished-shift';
import type { GroupStats } from '../domain/summary.js';
import { DistanceDistribution, percentileInc } from './distance-distribution.js';
import {
  BLOCK_PAIRS,
  isCompactDistance,
  NO_DISTANCE,
  WIDE_DISTANCE,
  type PendingDistances,
} from './pending-distances.js';
import type { RecordBuilder } from './record-runs.js';

const SPILL_AT = 4_096;
/** Sort space for the statistics of small groups (synchronous, one group at a time). */
const startScratch = new Float64Array(SPILL_AT);
const finishScratch = new Float64Array(SPILL_AT);
const NO_BLOCK = -1;

/** Sorts values[from..to) ascending, by insertion: the cheapest for the many tiny groups. */
function insertionSort(values: Float64Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    const value = values[i]!;
    let j = i - 1;
    while (j >= from && values[j]! > value) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = value;
  }
}

/** Below this many values a range is sorted by insertion rather than partitioned. */
const INSERTION_SORT_AT = 48;

/**
 * Rearranges values[from..to) so that values[k] holds what sorting would put there, with nothing
 * larger before it and nothing smaller after it (quickselect, Hoare's partition: runs of equal
 * distances, common here, split evenly).
 */
function select(values: Float64Array, from: number, to: number, k: number): void {
  let left = from;
  let right = to - 1;
  while (right - left >= INSERTION_SORT_AT) {
    const a = values[left]!;
    const b = values[(left + right) >>> 1]!;
    const c = values[right]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    // values[left..j] <= pivot <= values[i..right], and whatever lies between equals the pivot.
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
  insertionSort(values, left, right + 1);
}

/**
 * The value of each rank of values[0..n) as sorted, for ranks asked in ascending order (two
 * percentiles read at most four): a small group is sorted, a larger one only partitioned around
 * the ranks asked, which costs about n each instead of n log n for the whole.
 */
function rankedValues(values: Float64Array, n: number): (rank: number) => number {
  if (n <= INSERTION_SORT_AT) {
    insertionSort(values, 0, n);
    return (rank) => values[rank]!;
  }
  // values[settled..n) hold exactly the values of ranks settled..n-1, in some order.
  let settled = 0;
  return (rank) => {
    if (rank >= settled) {
      select(values, settled, n, rank);
      settled = rank + 1;
    } else if (rank !== settled - 1) {
      throw new Error(`rank ${rank} asked after rank ${settled - 1}: ranks are read in ascending order`);
    }
    return values[rank]!;
  };
}

/** values[0..n) as (value, 1) pairs behind their count. */
function writeValues(out: RecordBuilder, values: Float64Array, n: number): void {
  out.number(n);
  for (let i = 0; i < n; i++) {
    out.number(values[i]!);
    out.number(1);
  }
}

function writeDistribution(out: RecordBuilder, distribution: DistanceDistribution): void {
  let pairs = 0;
  distribution.forEachCount(() => void pairs++);
  out.number(pairs);
  distribution.forEachCount((value, times) => {
    out.number(value);
    out.number(times);
  });
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
  /** The values of the WIDE_DISTANCE marks among the pending pairs, in the order of the marks. */
  private wide: number[] | null = null;
  private startDistances: DistanceDistribution | null = null;
  private finishDistances: DistanceDistribution | null = null;

  constructor(private readonly slab: PendingDistances) {}

  add(
    shift: Pick<
      FinishedShift,
      | 'duration'
      | 'start_location_match'
      | 'finish_location_match'
      | 'auto_finished'
      | 'start_location_distance'
      | 'finish_location_distance'
    >,
  ): void {
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
    if (this.startDistances === null) {
      // Start before finish: the order in which forEachPending() reads WIDE_DISTANCE marks back.
      const start = this.slabValue(startDistance);
      this.addPending(start, this.slabValue(finishDistance));
      return;
    }
    if (startDistance !== null) this.startDistances.add(startDistance);
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
    this.forEachPending((start, finish) => {
      if (start !== null) startScratch[startCount++] = start;
      if (finish !== null) finishScratch[finishCount++] = finish;
    });
    const startAt = rankedValues(startScratch, startCount);
    const finishAt = rankedValues(finishScratch, finishCount);
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

  /**
   * Writes the group's state so far into `out` (group-spill.ts reads it back): the ten counters in
   * the order of GroupStats, then the start and the finish distances, each as a count of distinct
   * values and (value, times) pairs.
   */
  writePartial(out: RecordBuilder): void {
    out.number(this.shifts);
    out.number(this.durationSeconds);
    out.number(this.startChecked);
    out.number(this.startMatched);
    out.number(this.finishChecked);
    out.number(this.finishMatched);
    out.number(this.bothChecked);
    out.number(this.bothMatched);
    out.number(this.noLocation);
    out.number(this.autoFinished);
    const starts = this.startDistances;
    const finishes = this.finishDistances;
    if (starts !== null && finishes !== null) {
      writeDistribution(out, starts);
      writeDistribution(out, finishes);
      return;
    }
    let startCount = 0;
    let finishCount = 0;
    this.forEachPending((start, finish) => {
      if (start !== null) startScratch[startCount++] = start;
      if (finish !== null) finishScratch[finishCount++] = finish;
    });
    writeValues(out, startScratch, startCount);
    writeValues(out, finishScratch, finishCount);
  }

  /** Gives the group's pending pairs back to the slab: the group is not used afterwards. */
  release(): void {
    this.slab.release(this.firstBlock);
    this.firstBlock = NO_BLOCK;
    this.lastBlock = NO_BLOCK;
    this.pendingPairs = 0;
    this.wide = null;
  }

  /** A distance as the slab stores it; a wide one is kept in `wide`. */
  private slabValue(distance: number | null): number {
    if (distance === null) return NO_DISTANCE;
    if (isCompactDistance(distance)) return distance;
    (this.wide ??= []).push(distance);
    return WIDE_DISTANCE;
  }

  /** Calls `visit` with each pending pair's distances (null for none), wide ones restored. */
  private forEachPending(visit: (start: number | null, finish: number | null) => void): void {
    const wide = this.wide;
    let nextWide = 0;
    const value = (stored: number): number | null => {
      if (stored === NO_DISTANCE) return null;
      return stored === WIDE_DISTANCE ? wide![nextWide++]! : stored;
    };
    this.slab.forEachPair(this.firstBlock, this.pendingPairs, (start, finish) => {
      const startValue = value(start);
      visit(startValue, value(finish));
    });
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

  /** Moves the SPILL_AT pending pairs into two distributions, which from now on take every distance. */
  private spill(): void {
    // Past SPILL_AT pairs the group is large: flat counts from the start.
    const starts = new DistanceDistribution(true);
    const finishes = new DistanceDistribution(true);
    this.forEachPending((start, finish) => {
      if (start !== null) starts.add(start);
      if (finish !== null) finishes.add(finish);
    });
    this.startDistances = starts;
    this.finishDistances = finishes;
    this.slab.release(this.firstBlock);
    this.firstBlock = NO_BLOCK;
    this.lastBlock = NO_BLOCK;
    this.pendingPairs = 0;
    this.wide = null;
  }
}
