import { describe, expect, it } from 'vitest';
import { formatSoak, leastSquaresSlope, summariseSoak, type SoakSample } from '../../bench/soak-summary.js';

const samples = (n: number, duration: (i: number) => number, rss: (i: number) => number): SoakSample[] =>
  Array.from({ length: n }, (_, k) => ({ index: k + 1, durationMs: duration(k + 1), rssMb: rss(k + 1) }));

describe('leastSquaresSlope', () => {
  it('finds the slope of points on a line, and none in a flat or single point', () => {
    expect(leastSquaresSlope([0, 1, 2, 3].map((x) => ({ x, y: 5 + 2 * x })))).toBeCloseTo(2, 10);
    expect(leastSquaresSlope([1, 2, 3].map((x) => ({ x, y: 7 })))).toBe(0);
    expect(leastSquaresSlope([{ x: 1, y: 3 }])).toBe(0);
  });
});

describe('summariseSoak', () => {
  it('compares the RSS after the last export with the RSS after export 30', () => {
    const summary = summariseSoak(
      samples(
        300,
        () => 1000,
        (i) => (i === 30 ? 200 : i === 300 ? 230 : 210),
      ),
    );
    expect(summary.baselineIndex).toBe(30);
    expect(summary.rssRatio).toBeCloseTo(1.15, 10);
    expect(summary.checkpoints.map((s) => s.index)).toEqual([30, 60, 90, 120, 150, 180, 210, 240, 270, 300]);
    expect(formatSoak(summary)).toContain('MISSED');
  });

  it('reads a trend of durations as ms per 100 exports and the first and last medians', () => {
    const summary = summariseSoak(
      samples(
        90,
        (i) => 1000 + 5 * i,
        () => 150,
      ),
    );
    expect(summary.slopeMsPer100).toBeCloseTo(500, 6);
    expect(summary.lastMedianMs - summary.firstMedianMs).toBeCloseTo(5 * 60, 6);
    expect(formatSoak(summary)).toContain('target ≤ +10%: met');
  });

  it('takes the last export as the baseline when fewer than 30 ran', () => {
    const summary = summariseSoak(
      samples(
        4,
        () => 900,
        (i) => 100 + i,
      ),
    );
    expect(summary.baselineIndex).toBe(4);
    expect(summary.checkpoints.map((s) => s.index)).toEqual([4]);
  });

  it('shows where the RSS lies at each checkpoint when the sample says', () => {
    const memory = { arenasMb: 41.25, arenas: 11, mainArenaMb: 5, otherAnonymousMb: 30, filesMb: 51 };
    const summary = summariseSoak([{ index: 1, durationMs: 2000, rssMb: 127.3, memory }]);
    expect(formatSoak(summary)).toContain('| 1 | 127.3 | 41.3 (11) | 5.0 | 30.0 | 51.0 | 2.00 |');
  });
});
