import { describe, expect, it } from 'vitest';
import { previousPeriods } from '../../src/domain/period.js';

describe('previousPeriods', () => {
  it('finds the week before a week, even one that starts on the 1st', () => {
    expect(previousPeriods({ from: '2026-11-16', to: '2026-11-22' })).toEqual([
      { from: '2026-11-09', to: '2026-11-15' },
    ]);
    expect(previousPeriods({ from: '2025-12-01', to: '2025-12-07' })[0]).toEqual({
      from: '2025-11-24',
      to: '2025-11-30',
    });
  });

  it('finds the day before a day, and the calendar month before a whole month', () => {
    expect(previousPeriods({ from: '2026-03-01', to: '2026-03-01' })[0]).toEqual({
      from: '2026-02-28',
      to: '2026-02-28',
    });
    expect(previousPeriods({ from: '2026-03-01', to: '2026-03-31' })).toEqual([
      { from: '2026-02-01', to: '2026-02-28' },
    ]);
    expect(previousPeriods({ from: '2026-01-01', to: '2026-01-31' })).toEqual([
      { from: '2025-12-01', to: '2025-12-31' },
    ]);
  });

  it('tries the same days of the month before for a month-to-date period, after the days just before', () => {
    expect(previousPeriods({ from: '2026-03-01', to: '2026-03-30' })).toEqual([
      { from: '2026-01-30', to: '2026-02-28' },
      { from: '2026-02-01', to: '2026-02-28' },
    ]);
    expect(previousPeriods({ from: '2026-11-01', to: '2026-11-14' })[1]).toEqual({
      from: '2026-10-01',
      to: '2026-10-14',
    });
  });
});
