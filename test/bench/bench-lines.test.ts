import { describe, expect, it } from 'vitest';
import { amdahlSpeedUp, headlineLines } from '../../bench/bench-lines.js';

describe('amdahlSpeedUp', () => {
  it('gives no speed-up to wholly serial work and n× to wholly parallel work', () => {
    expect(amdahlSpeedUp(1, 16)).toBe(1);
    expect(amdahlSpeedUp(0, 8)).toBe(8);
  });

  it('caps a 10% serial part below 10× however many cores', () => {
    expect(amdahlSpeedUp(0.1, 4)).toBeCloseTo(3.08, 2);
    expect(amdahlSpeedUp(0.1, 16)).toBeCloseTo(6.4, 2);
  });
});

describe('headlineLines', () => {
  it('measures DuckDB in every default run and the user-per-row line only when asked', () => {
    expect(headlineLines(undefined).map((l) => l.kind)).toContain('duckdb');
    expect(headlineLines(undefined).some((l) => l.userPerRow === true)).toBe(false);
    expect(
      headlineLines('csv', true)
        .filter((l) => l.userPerRow === true)
        .map((l) => l.name),
    ).toEqual(['csv e2e, user per row']);
  });

  it('measures the CSV and the workbook lines at the default EXPORT_THREADS and at 1', () => {
    for (const formats of ['csv', 'csv,xlsx']) {
      const lines = headlineLines(formats).filter((l) => l.kind === formats);
      expect(lines.map((l) => l.env?.['EXPORT_THREADS'])).toEqual([undefined, '1']);
    }
    expect(headlineLines('csv').some((l) => l.kind === 'csv,xlsx')).toBe(false);
  });
});
