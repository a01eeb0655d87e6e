import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeenIds } from '../../src/pipeline/seen-ids.js';

// Big arrays shrink slowly: the properties stop at the first failure and print it whole.

/** Adds every id to a SeenIds and to a Set, then every id again and the probes: add() answers alike. */
function agreesWithSet(ids: readonly number[], probes: readonly number[] = []): void {
  const set = new SeenIds();
  const reference = new Set<number>();
  const disagreements: string[] = [];
  for (const id of ids) {
    if (set.add(id) === reference.has(id)) disagreements.push(`add(${id})`);
    reference.add(id);
  }
  for (const id of [...ids, ...probes]) {
    if (set.add(id) === reference.has(id)) disagreements.push(`again(${id})`);
    reference.add(id);
  }
  expect(disagreements).toEqual([]);
}

const SAFE = Number.MAX_SAFE_INTEGER;

describe('SeenIds', () => {
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

  it('takes 300,000 sequential ids once each and finds none missing', () => {
    const set = new SeenIds();
    let added = 0;
    for (let id = 1; id <= 300_000; id++) if (set.add(id)) added++;
    let again = 0;
    for (let id = 1; id <= 300_000; id++) if (set.add(id)) again++;
    expect([added, again]).toEqual([300_000, 0]);
    expect(set.add(0)).toBe(true);
    expect(set.add(300_001)).toBe(true);
  });

  it('moves dense ids into containers and leaves widely spread ones in the table', () => {
    const dense = new SeenIds();
    for (let id = 0; id < 200_000; id++) dense.add(1_000_000 + id * 3);
    expect(dense.containerCount).toBeGreaterThanOrEqual(9);
    const spread = new SeenIds();
    let added = 0;
    for (let i = 0; i < 200_000; i++) if (spread.add(i * 1_000_003_077)) added++;
    expect(spread.containerCount).toBe(0);
    expect(added).toBe(200_000);
  });

  it('treats 0 and -0 as one id', () => {
    const set = new SeenIds();
    expect(set.add(0)).toBe(true);
    expect(set.add(-0)).toBe(false);
  });
});
