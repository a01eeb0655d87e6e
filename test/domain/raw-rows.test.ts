import { describe, expect, it } from 'vitest';
import { concatRawRows, RawRowsBuilder, withRowTexts, type RowTexts } from '../../src/domain/raw-rows.js';

/** Texts of a batch named `name`: row i's text is `name:i`. */
function texts(name: string, notUtf8: readonly number[] = []): RowTexts {
  return {
    textOf: (i) => `${name}:${i}`,
    isUtf8: (i) => !notUtf8.includes(i),
    allUtf8: notUtf8.length === 0,
    release: () => undefined,
  };
}

function batch(name: string, length: number, notUtf8: readonly number[] = []) {
  return withRowTexts(
    Array.from({ length }, (_, i) => ({ [name]: i })),
    texts(name, notUtf8),
  );
}

describe('RawRowsBuilder', () => {
  it('keeps the way back to the text of every row taken from other batches', () => {
    const a = batch('a', 4);
    const b = batch('b', 3, [1]);
    const builder = new RawRowsBuilder();
    builder.append(a, 1, 3);
    builder.append(a, 3);
    builder.append(b, 0, 2);
    const built = builder.take();
    expect(built).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }, { b: 0 }, { b: 1 }]);
    expect(built.map((_, i) => built.texts?.textOf(i))).toEqual(['a:1', 'a:2', 'a:3', 'b:0', 'b:1']);
    expect(built.map((_, i) => built.texts?.isUtf8(i))).toEqual([true, true, true, true, false]);
    expect(built.texts?.allUtf8).toBe(false);
    expect(() => built.texts?.textOf(5)).toThrow(RangeError);
    expect(builder.take()).toEqual([]);
  });

  it('lets go of the source texts when released, and then refuses to read them', () => {
    const joined = concatRawRows(batch('a', 1), batch('b', 1));
    joined.texts?.release();
    expect(() => joined.texts?.textOf(0)).toThrow(/released/);
    expect(() => joined.texts?.isUtf8(1)).toThrow(/released/);
  });

  it('builds a batch without texts when a row came without one (none is guessed)', () => {
    const builder = new RawRowsBuilder();
    builder.append(batch('a', 2));
    builder.append([{ plain: true }]);
    expect(builder.take().texts).toBeUndefined();
  });

  it('joins two batches, texts included', () => {
    const joined = concatRawRows(batch('a', 1), batch('b', 2));
    expect(joined.map((_, i) => joined.texts?.textOf(i))).toEqual(['a:0', 'b:0', 'b:1']);
  });
});
