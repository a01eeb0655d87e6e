import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES, SheetBlocks } from '../../../src/render/xlsx/sheet-blocks.js';

describe('SheetBlocks', () => {
  it('gives a block back out once its bytes were taken, whole, from any part of it', () => {
    const blocks = new SheetBlocks();
    const first = blocks.take();
    expect(first.length).toBe(BLOCK_BYTES);
    const second = blocks.take();
    expect(second.buffer).not.toBe(first.buffer);
    blocks.taken(first.subarray(0, 100));
    const again = blocks.take();
    expect(again.buffer).toBe(first.buffer);
    expect(again.length).toBe(BLOCK_BYTES);
  });

  it('leaves alone bytes it did not lend, and a block given back twice', () => {
    const blocks = new SheetBlocks();
    const lent = blocks.take();
    blocks.taken(Buffer.alloc(BLOCK_BYTES));
    blocks.taken(lent);
    blocks.taken(lent);
    const one = blocks.take();
    const two = blocks.take();
    expect(one.buffer).toBe(lent.buffer);
    expect(two.buffer).not.toBe(lent.buffer);
  });
});
