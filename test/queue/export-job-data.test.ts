import { describe, expect, it } from 'vitest';
import { ShiftExportError } from '../../src/errors.js';
import { exportJobData, exportJobDataSchema, parseJobData } from '../../src/queue/export-job-data.js';

describe('export job data', () => {
  it('accepts a period, formats and an optional destination, putting formats in canonical order', () => {
    expect(
      parseJobData(
        exportJobDataSchema,
        { from: '2026-11-01', to: '2026-11-02', formats: ['parquet', 'xlsx', 'csv'] },
        'export',
      ),
    ).toEqual({
      from: '2026-11-01',
      to: '2026-11-02',
      formats: ['csv', 'xlsx', 'parquet'],
    });
  });

  it('refuses a field it does not know, so nothing (a token above all) rides along', () => {
    const parse = () =>
      parseJobData(
        exportJobDataSchema,
        { from: '2026-11-01', to: '2026-11-02', formats: ['csv'], token: 'x' },
        'export',
      );
    expect(parse).toThrow(/export job data is invalid/);
  });

  it('fails with a non-retryable error that names the field', () => {
    try {
      parseJobData(exportJobDataSchema, { from: '2026-02-30', to: '2026-03-01', formats: ['csv'] }, 'export');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ShiftExportError);
      expect((error as ShiftExportError).retryable).toBe(false);
      expect((error as ShiftExportError).toOneLine()).toMatch(
        /^REQUEST_INVALID: the export job data is invalid at from: expected a real date/,
      );
    }
  });

  it('refuses an unknown format and an empty list', () => {
    expect(() =>
      parseJobData(exportJobDataSchema, { from: '2026-11-01', to: '2026-11-01', formats: ['pdf'] }, 'export'),
    ).toThrow(/formats/);
    expect(() =>
      parseJobData(exportJobDataSchema, { from: '2026-11-01', to: '2026-11-01', formats: [] }, 'export'),
    ).toThrow(/formats/);
  });

  it('is built without undefined members', () => {
    expect(exportJobData('2026-11-01', '2026-11-01', ['xlsx', 'csv'])).toEqual({
      from: '2026-11-01',
      to: '2026-11-01',
      formats: ['csv', 'xlsx'],
    });
    expect('dest' in exportJobData('2026-11-01', '2026-11-01', ['csv'])).toBe(false);
  });
});

describe('export job data naming an export definition', () => {
  const period = { from: '2026-11-16', to: '2026-11-22', formats: ['xlsx'] };

  it('parses job data written before definitions existed (no export) and with one', () => {
    expect(parseJobData(exportJobDataSchema, period, 'export')).toEqual(period);
    expect(parseJobData(exportJobDataSchema, { ...period, export: 'weekly' }, 'export')).toEqual({
      ...period,
      export: 'weekly',
    });
    expect(exportJobData('2026-11-16', '2026-11-22', ['xlsx'], undefined, 'weekly')).toEqual({
      ...period,
      export: 'weekly',
    });
  });

  it('refuses a name a definition cannot have', () => {
    expect(() => parseJobData(exportJobDataSchema, { ...period, export: 'Weekly Report' }, 'export')).toThrow(
      /at export: expected an export definition name/,
    );
  });
});
