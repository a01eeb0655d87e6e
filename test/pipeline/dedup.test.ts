import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DuplicateFilter } from '../../src/pipeline/dedup.js';
import { IdSet } from '../../src/pipeline/id-set.js';

// Big arrays shrink slowly: the properties stop at the first failure and print it whole.

/** Adds every id to an IdSet and to a Set, checking add() answers and membership alike. */
function agreesWithSet(ids: readonly number[], probes: readonly number[] = []): void {
  const set = new IdSet();
  const reference = new Set<number>();
  const disagreements: string[] = [];
  for (const id of ids) {
    if (set.add(id) === reference.has(id)) disagreements.push(`add(${id})`);
    reference.add(id);
  }
  for (const id of [...ids, ...probes]) {
    if (set.has(id) !== reference.has(id)) disagreements.push(`has(${id})`);
  }
  expect(disagreements).toEqual([]);
  expect(set.size).toBe(reference.size);
}

const SAFE = Number.MAX_SAFE_INTEGER;

describe('IdSet', () => {
  it('behaves like a Set on ids clustered in a few chunks (property)', () => {
    const clustered = fc.array(
      fc
        .tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 65_535 }))
        .map(([c, low]) => c * 65_536 + low),
      { minLength: 800, maxLength: 3_000 },
    );
    fc.assert(fc.property(clustered, fc.array(fc.integer({ min: -200_000, max: 200_000 })), agreesWithSet), {
      numRuns: 60,
      endOnFailure: true,
    });
  });

  it('behaves like a Set on ids anywhere in the safe range, negative ones too (property)', () => {
    const wide = fc.array(
      fc.oneof(
        fc.integer({ min: -SAFE, max: SAFE }),
        fc.constantFrom(0, -0, 1, -1, SAFE, -SAFE, 65_535, 65_536, -65_536, -65_537),
      ),
      {
        minLength: 800,
        maxLength: 3_000,
      },
    );
    fc.assert(fc.property(wide, fc.array(fc.integer({ min: -SAFE, max: SAFE })), agreesWithSet), {
      numRuns: 60,
      endOnFailure: true,
    });
  });

  it('behaves like a Set on runs of ascending ids with repeats (property)', () => {
    const runs = fc
      .array(fc.tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 1, max: 600 })), {
        minLength: 1,
        maxLength: 12,
      })
      .map((starts) => starts.flatMap(([start, length]) => Array.from({ length }, (_, i) => start + i)))
      .chain((ids) => fc.shuffledSubarray(ids, { minLength: 0 }).map((repeats) => [...ids, ...repeats]));
    fc.assert(
      fc.property(runs, (ids) => agreesWithSet(ids)),
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('keeps a dense chunk exact when it turns into a bitmap', () => {
    const ids: number[] = [];
    for (let i = 0; i < 65_536; i += 3) ids.push(5 * 65_536 + i);
    for (let i = 65_535; i >= 0; i -= 7) ids.push(5 * 65_536 + i);
    agreesWithSet(ids, [5 * 65_536 - 1, 6 * 65_536, 5 * 65_536 + 1]);
  });

  it('counts 300,000 sequential ids once each and finds none missing', () => {
    const set = new IdSet();
    for (let id = 1; id <= 300_000; id++) set.add(id);
    for (let id = 1; id <= 300_000; id += 1_000) expect(set.add(id)).toBe(false);
    expect(set.size).toBe(300_000);
    expect(set.has(0)).toBe(false);
    expect(set.has(300_001)).toBe(false);
  });

  it('moves dense ids into containers and leaves widely spread ones in the table', () => {
    const dense = new IdSet();
    for (let id = 0; id < 200_000; id++) dense.add(1_000_000 + id * 3);
    expect(dense.containerCount).toBeGreaterThanOrEqual(9);
    const spread = new IdSet();
    for (let i = 0; i < 200_000; i++) spread.add(i * 1_000_003_077);
    expect(spread.containerCount).toBe(0);
    expect(spread.size).toBe(200_000);
  });

  it('treats 0 and -0 as one id', () => {
    const set = new IdSet();
    expect(set.add(0)).toBe(true);
    expect(set.add(-0)).toBe(false);
  });
});

describe('dedup', () => {
  it('lets the first sighting of an id through and no later one', () => {
    const filter = new DuplicateFilter();
    expect([7, 8, 7, -7, 8, 2 ** 53 - 1, 2 ** 53 - 1].map((id) => filter.firstSighting(id))).toEqual([
      true,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(filter.distinct).toBe(4);
  });
});
