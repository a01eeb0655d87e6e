import { describe, expect, it } from 'vitest';
import { backfillDayJobId, backfillJobId, exportJobId } from '../../src/queue/export-job-id.js';

const period = { from: '2026-11-01', to: '2026-11-07' };

describe('exportJobId', () => {
  it('names the period and formats and hashes the destination', () => {
    expect(exportJobId(period, ['csv', 'xlsx'], 's3://bucket/shifts')).toMatch(
      /^export-2026-11-01_2026-11-07-csv\+xlsx-[0-9a-f]{10}$/,
    );
  });

  it('is the same for the same export, whatever the order of formats or a trailing slash', () => {
    expect(exportJobId(period, ['xlsx', 'csv'], 's3://b/p/')).toBe(
      exportJobId(period, ['csv', 'xlsx'], 's3://b/p'),
    );
  });

  it('differs when the period, formats or destination differ', () => {
    const ids = new Set([
      exportJobId(period, ['csv'], undefined),
      exportJobId(period, ['xlsx'], undefined),
      exportJobId(period, ['csv'], './exports'),
      exportJobId({ from: '2026-11-01', to: '2026-11-06' }, ['csv'], undefined),
    ]);
    expect(ids.size).toBe(4);
  });

  it('never contains ":" and is never an integer', () => {
    const id = exportJobId(period, ['csv'], 's3://bucket:9000/odd:prefix');
    expect(id).not.toContain(':');
    expect(Number.isInteger(Number(id))).toBe(false);
  });
});

describe('backfill ids', () => {
  it('scopes each day to its backfill', () => {
    const parent = backfillJobId(period, ['csv'], undefined);
    expect(parent).toMatch(/^backfill-2026-11-01_2026-11-07-csv-/);
    expect(backfillDayJobId(parent, '2026-11-03')).toBe(`${parent}-day-2026-11-03`);
    expect(parent).not.toBe(exportJobId(period, ['csv'], undefined));
  });
});

describe('export ids of an export definition', () => {
  it('name the definition, so two definitions exporting one period are two jobs', () => {
    const weekly = exportJobId(period, ['csv'], 'exports/weekly', 'weekly');
    expect(weekly).toMatch(/^export-weekly-2026-11-01_2026-11-07-csv-[0-9a-f]{10}$/);
    expect(weekly).not.toBe(exportJobId(period, ['csv'], 'exports/weekly', 'by-division'));
    expect(weekly).not.toBe(exportJobId(period, ['csv'], 'exports/weekly'));
  });
});
