import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysFromCivil, daysInMonth, SECONDS_PER_DAY } from '../src/civil-time.js';
import { LOCAL_DATE_TIME_PATTERN } from '../src/date-time-text.js';
import {
  isLocalDateTimeText,
  parseLocalDateTimeSeconds,
  parsePatternedLocalDateTimeSeconds,
} from '../src/local-date-time.js';

const pad2 = (n: number): string => String(n).padStart(2, '0');

// The oracle: the contract's pattern, its groups read with Number.
function readableSeconds(text: string): number | undefined {
  const m = LOCAL_DATE_TIME_PATTERN.exec(text);
  if (!m) return undefined;
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || hh > 23 || mi > 59 || ss > 59) {
    return undefined;
  }
  return daysFromCivil(y, mo, d) * SECONDS_PER_DAY + hh * 3600 + mi * 60 + ss;
}

describe('parseLocalDateTimeSeconds', () => {
  const text = fc.oneof(
    fc.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,10})?$/),
    fc.stringMatching(/^[0-9T:.-]{17,30}$/),
    fc.string({ maxLength: 30 }),
    // Every field near its limits, so a wrong bound on any of them is found.
    fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 22, max: 25 }),
        fc.integer({ min: 58, max: 61 }),
        fc.integer({ min: 58, max: 61 }),
        fc.stringMatching(/^(\.\d{0,10})?$/),
      )
      .map(([y, mo, d, h, mi, s, fraction]) => {
        const date = `${String(y).padStart(4, '0')}-${pad2(mo)}-${pad2(d)}`;
        return `${date}T${pad2(h)}:${pad2(mi)}:${pad2(s)}${fraction}`;
      }),
  );

  it('equals the pattern read with a regex on any text (property)', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(parseLocalDateTimeSeconds(t)).toBe(readableSeconds(t));
        expect(isLocalDateTimeText(t)).toBe(LOCAL_DATE_TIME_PATTERN.test(t));
        if (isLocalDateTimeText(t)) expect(parsePatternedLocalDateTimeSeconds(t)).toBe(readableSeconds(t));
      }),
      { numRuns: 5_000 },
    );
  });

  it('drops the fraction and refuses impossible dates', () => {
    expect(parseLocalDateTimeSeconds('1970-01-01T00:00:00.999999999')).toBe(0);
    expect(parseLocalDateTimeSeconds('2024-02-29T23:59:59')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59) / 1000);
    expect(parseLocalDateTimeSeconds('2023-02-29T00:00:00')).toBeUndefined();
    expect(parseLocalDateTimeSeconds('2024-04-31T00:00:00')).toBeUndefined();
    expect(parseLocalDateTimeSeconds('2024-01-01T23:59:60')).toBeUndefined();
    expect(parseLocalDateTimeSeconds('2024-01-01T24:00:00')).toBeUndefined();
    expect(parseLocalDateTimeSeconds('2024-01-01T08:00:00.')).toBeUndefined();
    expect(parseLocalDateTimeSeconds('2024-01-01T08:00:00.1234567890')).toBeUndefined();
  });
});
