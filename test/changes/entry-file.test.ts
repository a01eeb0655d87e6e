import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntryFile } from '../../src/changes/entry-file.js';

let tempDir: string;
beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'entry-file-test-'));
});
afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

/** `ids.length` entries: the id, then the id again as the 8 "hash" bytes. */
function entries(ids: readonly number[]): Buffer {
  const out = Buffer.alloc(ids.length * 16);
  ids.forEach((id, i) => {
    out.writeDoubleLE(id, i * 16);
    out.writeDoubleLE(id, i * 16 + 8);
  });
  return out;
}

describe('entry file', () => {
  it('appends entries behind the row-hashes header', async () => {
    const file = new EntryFile(tempDir, 'test');
    try {
      file.append(entries([1, 2, 3]), 2);
      file.append(entries([7]), 1);
      expect(file.entries).toBe(3);
      expect(file.bytes).toBe(8 + 3 * 16);
      const bytes = await readFile(file.path);
      expect(bytes.equals(Buffer.concat([Buffer.from('SXRH0002'), entries([1, 2, 7])]))).toBe(true);
    } finally {
      await file.dispose();
    }
  });

  it('reads a range of entries block by block', async () => {
    const file = new EntryFile(tempDir, 'test');
    try {
      file.append(entries([10, 20, 30, 40, 50, 60, 70]), 7);
      // A block of 40 bytes holds two whole entries.
      const reader = file.reader(1, 6, 40);
      const seen: number[] = [];
      const left: number[] = [];
      const copy = Buffer.alloc(16);
      while (!reader.done) {
        left.push(reader.remaining);
        seen.push(reader.id);
        reader.copyTo(copy, 0);
        expect(copy.equals(entries([reader.id]))).toBe(true);
        expect(reader.hashEquals(entries([reader.id]), 8)).toBe(true);
        expect(reader.hashEquals(entries([reader.id + 1]), 8)).toBe(false);
        reader.advance();
      }
      expect(seen).toEqual([20, 30, 40, 50, 60]);
      expect(left).toEqual([5, 4, 3, 2, 1]);
      expect(reader.remaining).toBe(0);
      expect(file.reader(3, 3, 64).done).toBe(true);
    } finally {
      await file.dispose();
    }
  });

  it('is removed by dispose(), and refuses to be read afterwards', async () => {
    const file = new EntryFile(tempDir, 'test');
    file.append(entries([1]), 1);
    expect(await readdir(tempDir)).toEqual([file.path.slice(tempDir.length + 1)]);
    await file.dispose();
    await file.dispose();
    expect(await readdir(tempDir)).toEqual([]);
    expect(() => file.reader(0, 1, 64)).toThrow(/after dispose/);
  });
});
