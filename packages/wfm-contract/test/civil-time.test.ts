import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { civilFromDays, formatDateTime, formatDay, formatUtc, SECONDS_PER_DAY } from '../src/civil-time.js';

// The oracle: the same texts by plain arithmetic and padding, with no cache and no tables.
const pad2 = (n: number): string => String(n).padStart(2, '0');
function plainDay(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}
function plainDateTime(seconds: number, separator: ' ' | 'T'): string {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  const rest = seconds - days * SECONDS_PER_DAY;
  const time = `${pad2(Math.floor(rest / 3600))}:${pad2(Math.floor((rest % 3600) / 60))}:${pad2(rest % 60)}`;
  return `${plainDay(days)}${separator}${time}`;
}

describe('civil-time formatting', () => {
  it('equals plain arithmetic from year 1 to year 9999 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }), (seconds) => {
        expect(formatDateTime(seconds)).toBe(plainDateTime(seconds, ' '));
        expect(formatDateTime(seconds, 'T')).toBe(plainDateTime(seconds, 'T'));
        expect(formatUtc(seconds)).toBe(`${plainDateTime(seconds, 'T')}Z`);
        const days = Math.floor(seconds / SECONDS_PER_DAY);
        expect(formatDay(days)).toBe(plainDay(days));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with Date on the UTC wall clock (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (seconds) => {
        expect(formatUtc(seconds)).toBe(new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));
      }),
      { numRuns: 2000 },
    );
  });

  it('stays right after its day cache has been emptied', () => {
    // More distinct days than the cache holds, then the first ones again.
    for (let day = 0; day < 5000; day++) formatDay(day);
    for (let day = 0; day < 10; day++) expect(formatDay(day)).toBe(plainDay(day));
    expect(formatDateTime(-1)).toBe('1969-12-31 23:59:59');
    expect(formatDateTime(-1, 'T')).toBe('1969-12-31T23:59:59');
  });
});
