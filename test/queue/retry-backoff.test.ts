import { describe, expect, it } from 'vitest';
import {
  BACKOFF_TYPE,
  backoffStrategy,
  MAX_BACKOFF_MS,
  retryDelayMs,
} from '../../src/queue/retry-backoff.js';

describe('retryDelayMs', () => {
  it('doubles each attempt with half of each step random', () => {
    expect(retryDelayMs(1, 1000, () => 0)).toBe(500);
    expect(retryDelayMs(1, 1000, () => 0.999999)).toBe(1000);
    expect(retryDelayMs(3, 1000, () => 0)).toBe(2000);
    expect(retryDelayMs(3, 1000, () => 0.5)).toBe(3000);
  });

  it('never waits longer than the cap', () => {
    expect(retryDelayMs(40, 30_000, () => 0.999999)).toBeLessThanOrEqual(MAX_BACKOFF_MS);
  });

  it('is 0 with a base of 0', () => {
    expect(retryDelayMs(5, 0)).toBe(0);
  });
});

describe('backoffStrategy', () => {
  it('reads the base delay from the job options', () => {
    const delay = backoffStrategy(2, BACKOFF_TYPE, undefined, { opts: { backoff: { delay: 1000 } } });
    expect(delay).toBeGreaterThanOrEqual(1000);
    expect(delay).toBeLessThanOrEqual(2000);
  });
});
