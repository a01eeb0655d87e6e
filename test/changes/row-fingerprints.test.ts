import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RowChangeCounter } from '../../src/changes/row-change-counter.js';
import { RowFingerprints, type SortedFingerprints } from '../../src/changes/row-fingerprints.js';
import { hashBytes } from './support/hash-bytes.js';

let tempDir: string;
beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'row-fingerprints-test-'));
});
afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

type Row = readonly [id: number, record: Buffer];

/** The in-memory implementation this module replaced, as the oracle: stable sort, first id wins. */
function referenceFile(rows: readonly Row[]): Buffer {
  const order = rows.map((_, index) => index);
  order.sort((a, b) => rows[a]![0] - rows[b]![0] || a - b);
  const parts = [Buffer.from('SXRH0002', 'latin1')];
  let last = Number.NEGATIVE_INFINITY;
  for (const index of order) {
    const [id, record] = rows[index]!;
    if (id === last) continue;
    last = id;
    const entry = Buffer.alloc(16);
    entry.writeDoubleLE(id, 0);
    hashBytes(record, entry, 8);
    parts.push(entry);
  }
  return Buffer.concat(parts);
}

/** The changes between two lists of rows, counted with maps (first row of an id wins). */
function referenceChanges(previous: readonly Row[], current: readonly Row[]) {
  const byId = (rows: readonly Row[]) => {
    const map = new Map<number, string>();
    for (const [id, record] of rows) if (!map.has(id)) map.set(id, record.toString('hex'));
    return map;
  };
  const before = byId(previous);
  const after = byId(current);
  let added = 0;
  let changed = 0;
  for (const [id, record] of after) {
    if (!before.has(id)) added++;
    else if (before.get(id) !== record) changed++;
  }
  const removed = [...before.keys()].filter((id) => !after.has(id)).length;
  return { added, removed, changed };
}

async function bytesOf(sorted: SortedFingerprints): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of sorted.stream()) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Fingerprints `rows`, hands the sorted result to `use`, and disposes of them. */
async function withSorted<T>(
  rows: readonly Row[],
  runSize: number | undefined,
  use: (sorted: SortedFingerprints) => Promise<T> | T,
): Promise<T> {
  const fingerprints = new RowFingerprints(
    runSize === undefined ? { tempDir, hash: hashBytes } : { tempDir, runSize, hash: hashBytes },
  );
  try {
    for (const [id, record] of rows) fingerprints.add(id, record);
    return await use(await fingerprints.finish());
  } finally {
    await fingerprints.dispose();
  }
}

function fileOf(rows: readonly Row[], runSize?: number): Promise<Buffer> {
  return withSorted(rows, runSize, bytesOf);
}

function diff(previous: Buffer, current: readonly Row[], chunk: number, runSize?: number) {
  return withSorted(current, runSize, (sorted) => {
    const counter = new RowChangeCounter(sorted);
    for (let i = 0; i < previous.length; i += chunk) counter.push(previous.subarray(i, i + chunk));
    return counter.finish();
  });
}

const rowsOf = (ids: readonly number[], variant = ''): Row[] =>
  ids.map((id) => [id, Buffer.from(`${id},row ${id}${variant}`)]);

/** Shift ids with their record's variant: equal ids may carry different records. */
const idLists = fc.oneof(
  // Ascending, with repeats: how the export's CSV arrives.
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 })), { maxLength: 60 })
    .map((steps) => {
      let id = 1_000_000;
      return steps.map(([step, variant]) => [(id += step), variant] as const);
    }),
  // Shuffled, many repeats, whose records differ: which one is kept shows.
  fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 3 })), { maxLength: 60 }),
  // Shuffled, ids of up to 15 digits.
  fc.array(fc.tuple(fc.integer({ min: 0, max: 999_999_999_999_999 }), fc.constant(0)), { maxLength: 60 }),
);
const rowLists = idLists.map((list) =>
  list.map(([id, variant]): Row => [id, Buffer.from(`${id},variant ${variant}`)]),
);
/** Tiny runs, so that most lists make several of them; undefined: the default size. */
const runSizes = fc.oneof(
  fc.integer({ min: 1, max: 3 }),
  fc.integer({ min: 4, max: 16 }),
  fc.constant(undefined),
);
const numRuns = 300;

describe('row fingerprints', () => {
  it('writes the bytes the in-memory implementation wrote, in any order and any run size', async () => {
    await fc.assert(
      fc.asyncProperty(rowLists, runSizes, async (rows, runSize) => {
        expect((await fileOf(rows, runSize)).equals(referenceFile(rows))).toBe(true);
        expect(await readdir(tempDir)).toEqual([]);
      }),
      { numRuns },
    );
  });

  it('writes the same bytes when the hashes come taken, in batches of any size, as row by row', async () => {
    await fc.assert(
      fc.asyncProperty(rowLists, runSizes, fc.integer({ min: 1, max: 20 }), async (rows, runSize, batch) => {
        const fingerprints = new RowFingerprints(
          runSize === undefined ? { tempDir, hash: hashBytes } : { tempDir, runSize, hash: hashBytes },
        );
        try {
          for (let from = 0; from < rows.length; from += batch) {
            const taken = rows.slice(from, from + batch);
            const hashes = Buffer.alloc(taken.length * 8);
            taken.forEach(([, record], k) => hashBytes(record, hashes, k * 8));
            fingerprints.addHashes(
              Float64Array.from(taken, ([id]) => id),
              hashes,
            );
          }
          expect(fingerprints.count).toBe(rows.length);
          expect((await bytesOf(await fingerprints.finish())).equals(referenceFile(rows))).toBe(true);
        } finally {
          await fingerprints.dispose();
        }
        expect(await readdir(tempDir)).toEqual([]);
      }),
      { numRuns },
    );
  });

  it('counts the changes the in-memory implementation counted', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowLists,
        rowLists,
        runSizes,
        fc.integer({ min: 1, max: 40 }),
        async (previous, current, runSize, chunk) => {
          const changes = await diff(referenceFile(previous), current, chunk, runSize);
          expect(changes).toEqual(referenceChanges(previous, current));
          expect(await readdir(tempDir)).toEqual([]);
        },
      ),
      { numRuns },
    );
  });

  it('reports entries and bytes of the sorted file', async () => {
    const rows = rowsOf([5, 3, 5, 1, 3]);
    const { count, bytes } = await withSorted(rows, 2, (s) => ({ count: s.count, bytes: s.bytes }));
    expect(count).toBe(3);
    expect(bytes).toBe(8 + 3 * 16);
  });

  it('keeps one entry per id, the first written, across many runs', async () => {
    const f = new RowFingerprints({ hash: hashBytes, tempDir, runSize: 1000 });
    try {
      for (let i = 5000; i > 0; i--) f.add(i, Buffer.from(String(i)));
      f.add(42, Buffer.from('duplicate'));
      expect(f.count).toBe(5001);
      const sorted = await f.finish();
      expect(sorted.count).toBe(5000);
      const file = await bytesOf(sorted);
      const expected = Buffer.alloc(8);
      hashBytes(Buffer.from('42'), expected, 0);
      expect(file.subarray(8 + 41 * 16 + 8, 8 + 42 * 16).equals(expected)).toBe(true);
    } finally {
      await f.dispose();
    }
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('spills full runs to a temp file while rows are added, and removes it on dispose', async () => {
    const f = new RowFingerprints({ hash: hashBytes, tempDir, runSize: 4 });
    for (let i = 0; i < 3; i++) f.add(i, Buffer.from('x'));
    expect(await readdir(tempDir)).toEqual([]);
    f.add(3, Buffer.from('x'));
    expect(await readdir(tempDir)).toHaveLength(1);
    await f.dispose();
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('removes its temp files when disposed after a merge', async () => {
    const f = new RowFingerprints({ hash: hashBytes, tempDir, runSize: 2 });
    for (const id of [9, 3, 7, 1, 8, 2]) f.add(id, Buffer.from(`row ${id}`));
    const sorted = await f.finish();
    expect(sorted.count).toBe(6);
    expect(await readdir(tempDir)).toHaveLength(1);
    await f.dispose();
    await f.dispose();
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('writes an empty file (header only) when no row was added', async () => {
    expect((await fileOf([])).toString('latin1')).toBe('SXRH0002');
  });

  it('refuses rows after finish() and a second finish()', async () => {
    const f = new RowFingerprints({ hash: hashBytes, tempDir });
    try {
      f.add(1, Buffer.from('a'));
      await f.finish();
      expect(() => f.add(2, Buffer.from('b'))).toThrow(/after finish/);
      await expect(f.finish()).rejects.toThrow(/twice/);
    } finally {
      await f.dispose();
    }
  });

  it('fails to spill into a temp folder that does not exist, leaving nothing behind', async () => {
    const f = new RowFingerprints({ hash: hashBytes, tempDir: join(tempDir, 'missing'), runSize: 2 });
    f.add(1, Buffer.from('a'));
    expect(() => f.add(2, Buffer.from('b'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    await f.dispose();
    expect(await readdir(tempDir)).toEqual([]);
  });
});
