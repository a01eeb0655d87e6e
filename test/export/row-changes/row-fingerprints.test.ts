import { describe, expect, it } from 'vitest';
import {
  entryCount,
  hashInto,
  RowChangeCounter,
  RowFingerprints,
  RowHashesInvalidError,
} from '../../../src/export/row-changes/row-fingerprints.js';

function fileOf(rows: Record<number, string>): Buffer {
  const f = new RowFingerprints();
  for (const [id, text] of Object.entries(rows)) f.add(Number(id), Buffer.from(text));
  return f.toFile();
}

function diff(previous: Buffer, current: Buffer, chunk = 7) {
  const counter = new RowChangeCounter(current);
  for (let i = 0; i < previous.length; i += chunk) counter.push(previous.subarray(i, i + chunk));
  return counter.finish();
}

describe('row fingerprints', () => {
  it('counts added, removed and changed rows between two exports', () => {
    const previous = fileOf({ 1: 'a', 2: 'b', 3: 'c', 5: 'e' });
    const current = fileOf({ 2: 'b', 3: 'C', 4: 'd', 5: 'e', 6: 'f' });
    expect(diff(previous, current)).toEqual({ added: 2, removed: 1, changed: 1 });
  });

  it('finds nothing changed between an export and itself, whatever the row order', () => {
    const f = new RowFingerprints();
    for (const id of [9, 3, 7, 1]) f.add(id, Buffer.from(`row ${id}`));
    const g = new RowFingerprints();
    for (const id of [1, 3, 7, 9]) g.add(id, Buffer.from(`row ${id}`));
    expect(diff(f.toFile(), g.toFile(), 1)).toEqual({ added: 0, removed: 0, changed: 0 });
  });

  it('counts every row as added against an empty previous export', () => {
    expect(diff(fileOf({}), fileOf({ 1: 'a', 2: 'b' }))).toEqual({ added: 2, removed: 0, changed: 0 });
  });

  it('grows past its first allocation and keeps one entry per id', () => {
    const f = new RowFingerprints();
    for (let i = 5000; i > 0; i--) f.add(i, Buffer.from(String(i)));
    f.add(42, Buffer.from('duplicate'));
    expect(f.count).toBe(5001);
    expect(entryCount(f.toFile())).toBe(5000);
  });

  it('tells apart records that differ in one byte, and agrees on equal ones', () => {
    const a = Buffer.alloc(8);
    const b = Buffer.alloc(8);
    const seen = new Set<string>();
    const base = Buffer.from(
      '1001368,2024-03-30,10739,fedorova.o,"Якутск, ТРК «Гринвич»",39397,10.94,true,,',
    );
    for (let i = 0; i < base.length; i++) {
      for (const delta of [1, 2, 128]) {
        const changed = Buffer.from(base);
        changed[i] = ((changed[i] as number) + delta) & 0xff;
        hashInto(changed, a, 0);
        seen.add(a.toString('hex'));
      }
    }
    hashInto(base, a, 0);
    hashInto(Buffer.from(base), b, 0);
    expect(a.equals(b)).toBe(true);
    expect(seen.has(a.toString('hex'))).toBe(false);
    expect(seen.size).toBe(base.length * 3);
  });

  it('refuses a truncated, foreign or unsorted previous file', () => {
    const current = fileOf({ 1: 'a' });
    const good = fileOf({ 1: 'a', 2: 'b' });
    expect(() => diff(good.subarray(0, good.length - 3), current)).toThrow(RowHashesInvalidError);
    expect(() => diff(Buffer.from('PK\u0003\u0004 not ours at all'), current)).toThrow(RowHashesInvalidError);
    const swapped = Buffer.concat([good.subarray(0, 8), good.subarray(24, 40), good.subarray(8, 24)]);
    expect(() => diff(swapped, current)).toThrow(/not sorted/);
  });
});
