import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundTo } from '../../src/domain/decimal.js';
import { DistanceDistribution } from '../../src/pipeline/distance-distribution.js';

/** Excel's PERCENTILE.INC as written in its documentation: rank p·(n−1), linear interpolation. */
function excelPercentileInc(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (rank - low) * (sorted[high]! - sorted[low]!);
}

/** Excel's MEDIAN: the middle value, or the mean of the two middle values. */
function excelMedian(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function distributionOf(values: readonly number[], large = false): DistanceDistribution {
  const distribution = new DistanceDistribution(large);
  for (const value of values) distribution.add(value);
  return distribution;
}

const round2 = (value: number | null): number | null => (value === null ? null : roundTo(value, 2));

describe('distance distribution', () => {
  it.each([
    [[1, 2, 3, 4], 2.5, 3.7],
    [[3, 1, 2], 2, 2.8],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5.5, 9.1],
    [[15, 20, 35, 40, 50], 35, 46],
    [[7], 7, 7],
    [[0, 0, 0, 1000], 0, 700],
    [[-5, 5], 0, 4],
  ])('gives Excel MEDIAN and PERCENTILE.INC(…, 0.9) of %j: %d and %d', (values, median, p90) => {
    const distribution = distributionOf(values);
    expect(distribution.median()).toBe(median);
    expect(distribution.percentileInc(9, 10)).toBe(p90);
  });

  it('has no median without values', () => {
    const distribution = new DistanceDistribution();
    expect(distribution.median()).toBeNull();
    expect(distribution.percentileInc(9, 10)).toBeNull();
    expect(distribution.count).toBe(0);
  });

  const values = fc.oneof(
    fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 60 }),
    fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }), { minLength: 1, maxLength: 3_000 }),
    // Long and mostly small: the dense counts take over, outliers and negatives stay merged.
    fc.array(
      fc.oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: 5_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }) },
      ),
      { minLength: 4_500, maxLength: 9_000 },
    ),
  );

  it('equals a sort-based Excel reference, with at most one decimal (property)', () => {
    fc.assert(
      fc.property(values, fc.boolean(), (list, large) => {
        const distribution = distributionOf(list, large);
        const median = distribution.median();
        const p90 = distribution.percentileInc(9, 10);
        expect(median).toBe(round2(excelMedian(list)));
        expect(p90).toBe(round2(excelPercentileInc(list, 0.9)));
        // Integer inputs: the exact results are multiples of 0.5 and 0.1, so rounding to 2
        // decimals only removes float noise.
        if (median !== null) expect(Number.isInteger(median * 2)).toBe(true);
        if (p90 !== null) expect(Math.abs(p90 * 10 - Math.round(p90 * 10))).toBeLessThan(1e-6);
        expect(distribution.count).toBe(list.length);
      }),
      { numRuns: 150 },
    );
  });

  it('stays exact while values keep coming after a median was read', () => {
    const distribution = new DistanceDistribution();
    const seen: number[] = [];
    for (let i = 0; i < 12_000; i++) {
      const value = (i * 7_919) % 6_007;
      distribution.add(value);
      seen.push(value);
      if (i % 2_999 === 0) expect(distribution.median()).toBe(round2(excelMedian(seen)));
    }
    expect(distribution.percentileInc(9, 10)).toBe(round2(excelPercentileInc(seen, 0.9)));
  });
});
