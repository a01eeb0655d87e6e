import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleWithin } from '../src/settle-within.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('settleWithin', () => {
  it('returns after the bound when the promise never settles (a close() waiting for a dead Redis)', async () => {
    let done = false;
    const waiting = settleWithin(new Promise(() => undefined), 3000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(2999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('returns as soon as the promise settles, and swallows its failure', async () => {
    await expect(settleWithin(Promise.reject(new Error('closed twice')), 3000)).resolves.toBeUndefined();
    await expect(settleWithin(Promise.resolve(1), 3000)).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
