import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RowChangeCounter } from '../../src/changes/row-change-counter.js';
import { RowFingerprints, type SortedFingerprints } from '../../src/changes/row-fingerprints.js';
import { RowHashesFormatError, RowHashesInvalidError } from '../../src/changes/row-hashes-format.js';
import { hashBytes } from './support/hash-bytes.js';

let tempDir: string;
beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'row-change-counter-test-'));
});
afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

async function withSorted<T>(
  rows: Record<number, string> | readonly number[],
  use: (sorted: SortedFingerprints) => Promise<T> | T,
): Promise<T> {
  const f = new RowFingerprints({ hash: hashBytes, tempDir, runSize: 3 });
  try {
    const entries: [number, string][] = Array.isArray(rows)
      ? rows.map((id) => [id, `row ${id}`])
      : Object.entries(rows).map(([id, text]) => [Number(id), text]);
    for (const [id, text] of entries) f.add(id, Buffer.from(text));
    return await use(await f.finish());
  } finally {
    await f.dispose();
  }
}

function fileOf(rows: Record<number, string> | readonly number[]): Promise<Buffer> {
  return withSorted(rows, async (sorted) => {
    const parts: Buffer[] = [];
    for await (const part of sorted.stream()) parts.push(part as Buffer);
    return Buffer.concat(parts);
  });
}

function diff(previous: Buffer, current: Record<number, string> | readonly number[], chunk = 7) {
  return withSorted(current, (sorted) => {
    const counter = new RowChangeCounter(sorted);
    for (let i = 0; i < previous.length; i += chunk) counter.push(previous.subarray(i, i + chunk));
    return counter.finish();
  });
}

describe('row change counter', () => {
  it('counts added, removed and changed rows between two exports', async () => {
    const previous = await fileOf({ 1: 'a', 2: 'b', 3: 'c', 5: 'e' });
    const current = { 2: 'b', 3: 'C', 4: 'd', 5: 'e', 6: 'f' };
    expect(await diff(previous, current)).toEqual({ added: 2, removed: 1, changed: 1 });
  });

  it('finds nothing changed between an export and itself, whatever the row order', async () => {
    const previous = await fileOf([9, 3, 7, 1]);
    expect(await diff(previous, [1, 3, 7, 9], 1)).toEqual({ added: 0, removed: 0, changed: 0 });
  });

  it('counts every row as added against an empty previous export', async () => {
    expect(await diff(await fileOf({}), { 1: 'a', 2: 'b' })).toEqual({ added: 2, removed: 0, changed: 0 });
  });

  it('walks current entries past one read block', async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => i * 2);
    const previous = await fileOf(ids.filter((id) => id % 3 !== 0));
    const current = ids.filter((id) => id % 5 !== 0);
    const added = current.filter((id) => id % 3 === 0).length;
    const removed = ids.filter((id) => id % 3 !== 0 && id % 5 === 0).length;
    expect(await diff(previous, current, 4096)).toEqual({ added, removed, changed: 0 });
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('refuses a truncated, foreign or unsorted previous file', async () => {
    const current = { 1: 'a' };
    const good = await fileOf({ 1: 'a', 2: 'b' });
    await expect(diff(good.subarray(0, good.length - 3), current)).rejects.toThrow(RowHashesInvalidError);
    await expect(diff(Buffer.from('PK\u0003\u0004 not ours at all'), current)).rejects.toThrow(
      RowHashesInvalidError,
    );
    const swapped = Buffer.concat([good.subarray(0, 8), good.subarray(24, 40), good.subarray(8, 24)]);
    await expect(diff(swapped, current)).rejects.toThrow(/not sorted/);
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('refuses a file of the older format (hashes of CSV records) as such, not as damaged', async () => {
    const good = await fileOf({ 1: 'a', 2: 'b' });
    const older = Buffer.concat([Buffer.from('SXRH0001', 'latin1'), good.subarray(8)]);
    const refusal = diff(older, { 1: 'a' }, 3);
    await expect(refusal).rejects.toThrow(RowHashesFormatError);
    await expect(refusal).rejects.toThrow(/older format SXRH0001/);
  });
});
