import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../src/config/wfm-config.js';
import { backoffDelayMs, parseRetryAfter, retryDelayMs } from '../../src/wfm/backoff.js';

const policy: RetryPolicy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 5_000, maxTotalMs: 60_000 };
const NOW = Date.parse('2024-05-01T12:00:00Z');

describe('backoffDelayMs', () => {
  it('stays within [0, min(maxDelay, base * 2^(retry-1))) for any retry and any random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (retry, r, baseDelayMs, maxDelayMs) => {
          const p = { ...policy, baseDelayMs, maxDelayMs };
          const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
          const delay = backoffDelayMs(retry, p, () => r);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(ceiling);
          if (ceiling > 0) expect(delay).toBeLessThan(ceiling);
          expect(Number.isInteger(delay)).toBe(true);
        },
      ),
    );
  });

  it('doubles its ceiling with each retry until maxDelayMs', () => {
    const almostOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, policy, almostOne))).toEqual([
      99, 199, 399, 799, 1599, 3199, 4999,
    ]);
  });

  it('draws the whole range (full jitter), down to zero', () => {
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(200);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1000],
    [' 120 ', 120_000],
  ])('reads delta-seconds %j as %i ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it('reads an IMF-fixdate relative to now', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:30 GMT', NOW)).toBe(30_000);
  });

  it('reads the obsolete RFC 850 and asctime date forms', () => {
    expect(parseRetryAfter('Wednesday, 01-May-24 12:00:05 GMT', NOW)).toBe(5_000);
    expect(parseRetryAfter('Wed May  1 12:00:07 2024', NOW)).toBe(7_000);
  });

  it('treats a date in the past as "now"', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', NOW)).toBe(0);
  });

  it.each([undefined, '', 'soon', '-5', '1.5', 'Wed, 99 Foo 2024'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('waits what Retry-After asks instead of the backoff', () => {
    expect(retryDelayMs(1, policy, '2', NOW, () => 0.5)).toBe(2000);
    expect(retryDelayMs(1, policy, 'Wed, 01 May 2024 12:00:03 GMT', NOW, () => 0.5)).toBe(3000);
  });

  it('caps Retry-After at maxDelayMs, in both forms', () => {
    expect(retryDelayMs(1, policy, '86400', NOW, () => 0.5)).toBe(5000);
    expect(retryDelayMs(1, policy, 'Thu, 02 May 2024 12:00:00 GMT', NOW, () => 0.5)).toBe(5000);
  });

  it('falls back to the backoff when Retry-After is absent or unreadable', () => {
    expect(retryDelayMs(2, policy, undefined, NOW, () => 0.5)).toBe(100);
    expect(retryDelayMs(2, policy, 'later', NOW, () => 0.5)).toBe(100);
  });
});
