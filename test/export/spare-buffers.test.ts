import { describe, expect, it } from 'vitest';
import { SpareBuffers } from '../../src/export/spare-buffers.js';

describe('SpareBuffers', () => {
  it('hands out the smallest spare buffer that fits, else a new one with room to spare', () => {
    const spare = new SpareBuffers(4);
    const small = new ArrayBuffer(100_000);
    const large = new ArrayBuffer(300_000);
    spare.give(large);
    spare.give(small);
    expect(spare.take(90_000)).toBe(small);
    expect(spare.take(90_000)).toBe(large);
    const fresh = spare.take(90_000);
    expect(fresh).not.toBe(small);
    expect(fresh.byteLength).toBeGreaterThan(90_000);
  });

  it('keeps the larger buffers when full, and none that moved to another thread', () => {
    const spare = new SpareBuffers(2);
    const a = new ArrayBuffer(10);
    const b = new ArrayBuffer(20);
    const c = new ArrayBuffer(30);
    spare.give(a);
    spare.give(b);
    spare.give(c);
    const moved = new ArrayBuffer(40);
    structuredClone(moved, { transfer: [moved] });
    spare.give(moved);
    expect(spare.size).toBe(2);
    expect(spare.take(1)).toBe(b);
    expect(spare.take(1)).toBe(c);
  });
});
