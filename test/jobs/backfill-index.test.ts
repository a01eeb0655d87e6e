import { describe, expect, it } from 'vitest';
import { buildBackfillIndex } from '../../jobs/backfill.js';
import type { ExportJobResult } from '../../src/queue/export-job-result.js';

const counts = { fetched: 2, exported: 2, rejected: 0, duplicates: 0, outside_window: 0, flagged: 0 };

function dayResult(date: string, extra: Partial<ExportJobResult>): ExportJobResult {
  return {
    export_id: `export-${date}`,
    period: { from: date, to: date },
    generated_at: `${date}T06:00:00.000Z`,
    counts,
    statistics: {},
    files: [],
    location: `/exports/${date}_${date}`,
    manifest_location: `/exports/${date}_${date}/manifest.json`,
    duration_ms: 1,
    ...extra,
  };
}

describe('buildBackfillIndex', () => {
  it("repeats each day's changes, or that they were not counted and why", () => {
    const counted = { previous_export_id: 'earlier', added: 1, removed: 0, changed: 0 };
    const why = { reason: 'row_hashes_not_written' as const, message: 'ENOSPC' };
    const index = buildBackfillIndex(
      'backfill-1',
      { from: '2024-03-01', to: '2024-03-03' },
      ['csv'],
      [
        dayResult('2024-03-01', { changes: counted }),
        dayResult('2024-03-02', { changes: null, changes_unavailable: why }),
        dayResult('2024-03-03', {}),
      ],
      new Date('2024-03-04T00:00:00Z'),
    );
    expect(index.days.map((d) => [d.changes, d.changes_unavailable])).toEqual([
      [counted, undefined],
      [null, why],
      [undefined, undefined],
    ]);
  });
});
