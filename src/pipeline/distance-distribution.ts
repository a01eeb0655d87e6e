// The exact distribution of the integer distances of one group, for Excel-equal MEDIAN and
// PERCENTILE.INC. Memory grows with the number of distinct distances, not with rows:
// - new values are pushed to a plain array (the cheapest append per row; most groups — users,
//   shops — never hold more than a few hundred values), and a long one is sorted and merged into
//   sorted (value, count) pairs;
// - a group that has gathered DENSE_AFTER values (the overall, division and region groups) also
//   counts the common distances 0..DENSE_RANGE-1 in a flat array of counts (16 KiB), so a row costs
//   one increment there; only distances outside that range still go through the pending array.

import { roundTo } from '../domain/decimal.js';

/** Pending values are merged once there are this many (or as many as distinct values, if more). */
const MERGE_AT = 1_024;
const DENSE_AFTER = 4_096;
const DENSE_RANGE = 4_096;
/** Shared by every distribution without merged values: never written to, only replaced. */
const EMPTY = new Float64Array(0);
const NO_COUNTS = new Uint32Array(0);
/** Sort space reused by every merge (merges are synchronous and never nested). */
let sortSpace = new Float64Array(MERGE_AT);
/**
 * Merge space, likewise: a merge writes here and keeps copies of the merged length. Arrays made at
 * the longest length a merge might need, then cut to size, were four buffers a merge outside the
 * heap: the few hundred large groups of a 3M-row report (each division, region and day) made
 * ~100 MB of them.
 */
let mergedValues = new Float64Array(2 * MERGE_AT);
let mergedCounts = new Uint32Array(2 * MERGE_AT);

/**
 * Excel PERCENTILE.INC at p = numerator / denominator of n values, rounded to 2 decimals; null when
 * n is 0. `valueAt` gives the value at a 0-based rank in ascending order. The rank p·(n−1) is
 * computed on integers, so 0.9·(n−1) never lands a hair below a whole rank; the interpolation
 * x[k] + (x[k+1] − x[k])·r/d of integers is then exact up to the division, and the 2-decimal
 * rounding only removes the float noise of that division (exact while values stay within ±2^46,
 * far beyond any real distance). MEDIAN is p = 1/2.
 */
export function percentileInc(
  n: number,
  numerator: number,
  denominator: number,
  valueAt: (rank: number) => number,
): number | null {
  if (n === 0) return null;
  const scaled = numerator * (n - 1);
  const rank = Math.floor(scaled / denominator);
  const remainder = scaled - rank * denominator;
  const low = valueAt(rank);
  if (remainder === 0) return low;
  const high = valueAt(rank + 1);
  return roundTo(low + ((high - low) * remainder) / denominator, 2);
}

export class DistanceDistribution {
  private readonly pending: number[] = [];
  /**
   * Distinct values ascending, and how often each came (never a value the dense counts hold): a
   * count is a number of rows, which 32 bits hold, and a quarter less to keep than as a float64.
   */
  private values = EMPTY;
  private counts = NO_COUNTS;
  private distinct = 0;
  /** Counts of the values 0..DENSE_RANGE-1, once the group is large. */
  private dense: Uint32Array | null = null;
  private total = 0;

  /** `large`: the group is known to be large already (a spilled group): count densely from the start. */
  constructor(large = false) {
    if (large) this.dense = new Uint32Array(DENSE_RANGE);
  }

  /** How many values were added. */
  get count(): number {
    return this.total;
  }

  /** Adds a safe integer. */
  add(value: number): void {
    this.total++;
    const dense = this.dense;
    if (dense !== null && value >= 0 && value < DENSE_RANGE) {
      dense[value]!++;
      return;
    }
    const pending = this.pending;
    pending.push(value);
    if (pending.length >= MERGE_AT && pending.length >= this.distinct) {
      this.merge();
      if (this.dense === null && this.total >= DENSE_AFTER) this.startDenseCounts();
    }
  }

  /** Excel MEDIAN, rounded to 2 decimals; null when there are no values. */
  median(): number | null {
    return this.percentileInc(1, 2);
  }

  /** Excel PERCENTILE.INC at p = numerator / denominator (see the function percentileInc above). */
  percentileInc(numerator: number, denominator: number): number | null {
    if (this.total === 0) return null;
    this.merge();
    return percentileInc(this.total, numerator, denominator, (rank) => this.valueAt(rank));
  }

  /** Calls `visit` with every distinct value and how often it came, in ascending order. */
  forEachCount(visit: (value: number, times: number) => void): void {
    this.merge();
    let i = 0;
    const dense = this.dense;
    if (dense !== null) {
      for (; i < this.distinct && this.values[i]! < 0; i++) visit(this.values[i]!, this.counts[i]!);
      for (let value = 0; value < DENSE_RANGE; value++) if (dense[value]! > 0) visit(value, dense[value]!);
    }
    for (; i < this.distinct; i++) visit(this.values[i]!, this.counts[i]!);
  }

  /** The value at a 0-based rank of all values in order: pairs below 0, dense counts, pairs above. */
  private valueAt(rank: number): number {
    let seen = 0;
    let i = 0;
    const dense = this.dense;
    if (dense !== null) {
      for (; i < this.distinct && this.values[i]! < 0; i++) {
        seen += this.counts[i]!;
        if (rank < seen) return this.values[i]!;
      }
      for (let value = 0; value < DENSE_RANGE; value++) {
        seen += dense[value]!;
        if (rank < seen) return value;
      }
    }
    for (; i < this.distinct; i++) {
      seen += this.counts[i]!;
      if (rank < seen) return this.values[i]!;
    }
    throw new RangeError(`rank ${rank} is beyond ${this.total} values`);
  }

  /** Moves the pairs inside 0..DENSE_RANGE-1 into flat counts; later values there go straight in. */
  private startDenseCounts(): void {
    const dense = new Uint32Array(DENSE_RANGE);
    let kept = 0;
    for (let i = 0; i < this.distinct; i++) {
      const value = this.values[i]!;
      if (value >= 0 && value < DENSE_RANGE) {
        dense[value] = this.counts[i]!;
      } else {
        this.values[kept] = value;
        this.counts[kept++] = this.counts[i]!;
      }
    }
    this.values = this.values.slice(0, kept);
    this.counts = this.counts.slice(0, kept);
    this.distinct = kept;
    this.dense = dense;
  }

  /** Sorts the pending values and merges them into the (value, count) pairs. */
  private merge(): void {
    const pending = this.pending;
    const n = pending.length;
    if (n === 0) return;
    if (sortSpace.length < n) sortSpace = new Float64Array(n);
    sortSpace.set(pending);
    const incoming = sortSpace.subarray(0, n).sort();
    if (mergedValues.length < this.distinct + n) {
      const length = Math.ceil(1.5 * (this.distinct + n));
      mergedValues = new Float64Array(length);
      mergedCounts = new Uint32Array(length);
    }
    const values = mergedValues;
    const counts = mergedCounts;
    let out = 0;
    let i = 0;
    let j = 0;
    while (i < this.distinct || j < n) {
      let value: number;
      let count = 0;
      if (j >= n || (i < this.distinct && this.values[i]! <= incoming[j]!)) {
        value = this.values[i]!;
        count = this.counts[i++]!;
      } else {
        value = incoming[j]!;
      }
      while (j < n && incoming[j] === value) {
        count++;
        j++;
      }
      values[out] = value;
      counts[out++] = count;
    }
    this.values = values.slice(0, out);
    this.counts = counts.slice(0, out);
    this.distinct = out;
    pending.length = 0;
  }
}
