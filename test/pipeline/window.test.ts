import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime, parseDay, SECONDS_PER_DAY } from 'wfm-contract/civil-time';
import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { upstreamWindow, type Period } from '../../src/domain/period.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { BusinessDayWindow } from '../../src/pipeline/window.js';
import { recordOf } from './support/shift-records.js';
import { shiftRow } from './support/shift-rows.js';

const MAY: Period = { from: '2024-05-01', to: '2024-05-31' };

/** The record of a shift that starts at `local` wall-clock time at `offset` minutes. */
function startingAt(local: string, offset: number): ShiftRecord {
  const utc = parseLocalDateTimeSeconds(local)! - offset * 60;
  return recordOf(
    shiftRow({
      start_time: formatDateTime(utc, 'T'),
      start_time_offset: offset,
      finish_time: formatDateTime(utc + 3600, 'T'),
      finish_time_offset: offset,
      duration: 3600,
    }),
  );
}

describe('window', () => {
  const window = new BusinessDayWindow(MAY);

  it.each([
    ['2024-05-01T00:00:00', 840, true],
    ['2024-05-01T00:00:00', -720, true],
    ['2024-04-30T23:59:59', 840, false],
    ['2024-04-30T23:59:59', -720, false],
    ['2024-05-31T23:59:59', -720, true],
    ['2024-05-31T23:59:59', 840, true],
    ['2024-06-01T00:00:00', -720, false],
    ['2024-06-01T00:00:00', 840, false],
  ])('keeps a shift starting at local %s at offset %i: %s', (local, offset, inside) => {
    expect(window.admits(startingAt(local, offset))).toBe(inside);
  });

  it('keeps one business day when from equals to', () => {
    const day = new BusinessDayWindow({ from: '2024-02-29', to: '2024-02-29' });
    const admitted = [
      '2024-02-29T00:00:00',
      '2024-02-29T23:59:59',
      '2024-02-28T23:59:59',
      '2024-03-01T00:00:00',
    ].map((local) => day.admits(startingAt(local, 0)));
    expect(admitted).toEqual([true, true, false, false]);
    expect(day.outside).toBe(2);
  });

  it('keeps a shift exactly when its local business date is in the period (property)', () => {
    const first = parseDay(MAY.from)!;
    const local = fc.integer({ min: (first - 3) * SECONDS_PER_DAY, max: (first + 34) * SECONDS_PER_DAY });
    const offset = fc.integer({ min: -720, max: 840 });
    fc.assert(
      fc.property(local, offset, (seconds, minutes) => {
        const record = startingAt(formatDateTime(seconds, 'T'), minutes);
        const date = formatDateTime(seconds).slice(0, 10);
        expect(window.admits(record)).toBe(date >= MAY.from && date <= MAY.to);
      }),
      { numRuns: 1_000 },
    );
  });

  it('gets every shift it keeps from the widened upstream request (property)', () => {
    const { startGte, startLt } = upstreamWindow(MAY);
    const first = parseDay(MAY.from)!;
    const local = fc.integer({ min: first * SECONDS_PER_DAY, max: (first + 31) * SECONDS_PER_DAY - 1 });
    fc.assert(
      fc.property(local, fc.integer({ min: -720, max: 840 }), (seconds, minutes) => {
        const start = formatDateTime(seconds - minutes * 60, 'T');
        expect(start >= startGte && start < startLt).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});
