import { describe, expect, it } from 'vitest';
import { exportRunOf } from '../../src/queue/export-run.js';

const data = { from: '2026-11-16', to: '2026-11-22', formats: ['csv'], export: 'weekly' };

describe('the run of an export job', () => {
  it('is the same for every attempt of one queued job', () => {
    const job = { id: 'export_2026-11-16_2026-11-22', timestamp: 1_732_000_000_000, data };
    expect(exportRunOf(job)).toBe('export_2026-11-16_2026-11-22@1732000000000');
    expect(exportRunOf({ ...job })).toBe(exportRunOf(job));
  });

  it('is a new one once the job was queued again', () => {
    const job = { id: 'export_2026-11-16_2026-11-22', timestamp: 1_732_000_000_000, data };
    const again = { ...job, data: { ...data, rerun: 1_732_600_000_000 } };
    expect(exportRunOf(again)).toBe('export_2026-11-16_2026-11-22@1732600000000');
    expect(exportRunOf(again)).not.toBe(exportRunOf(job));
  });

  it('reads data it cannot parse as a job never queued again', () => {
    const job = { id: 'x', timestamp: 5, data: { ...data, rerun: 'soon', token: 'secret' } };
    expect(exportRunOf(job)).toBe('x@5');
  });
});
