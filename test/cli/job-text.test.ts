import { describe, expect, it } from 'vitest';
import { formatExportResult } from '../../src/cli/job-text.js';
import type { ExportJobResult } from '../../src/queue/export-job-result.js';
import { STATISTIC_COLUMNS } from '../../src/render/manifest.js';

const file = (path: string, divisionId?: number) => ({
  name: path.slice(path.lastIndexOf('/') + 1),
  path,
  bytes: 10,
  sha256: '0'.repeat(64),
  rows: 1,
  content_type: 'text/csv; charset=utf-8',
  ...(divisionId === undefined ? {} : { division_id: divisionId }),
});

const result: ExportJobResult = {
  export_id: 'e1',
  period: { from: '2024-05-01', to: '2024-05-07' },
  generated_at: '2024-05-08T03:00:00.000Z',
  counts: {
    fetched: 10,
    exported: 6,
    rejected: 1,
    duplicates: 0,
    outside_window: 1,
    flagged: 0,
    filtered_out: 2,
  },
  statistics: Object.fromEntries(STATISTIC_COLUMNS.map((c) => [c.name, 0])),
  files: [
    file('rejected.csv'),
    file('divisions/1/shifts.csv', 1),
    file('divisions/1/shifts.xlsx', 1),
    file('divisions/2/shifts.csv', 2),
    file('divisions/2/shifts.xlsx', 2),
  ],
  divisions: [
    { division_id: 1, division_name: 'North', shifts: 4, changed: true },
    { division_id: 2, division_name: 'South', shifts: 2, changed: false },
  ],
  location: '/exports/2024-05-01_2024-05-07',
  manifest_location: '/exports/2024-05-01_2024-05-07/manifest.json',
  duration_ms: 1000,
};

describe('formatExportResult', () => {
  it('names the rows outside the filter, and sums a split export up by its division folders', () => {
    const text = formatExportResult(result);
    expect(text).toContain('filtered out 2');
    expect(text).toContain(
      'files             rejected.csv, divisions/<division_id>/ for 2 divisions (4 files; 1 divisions changed), manifest.json',
    );
  });

  it('lists every file of an export that is neither filtered nor split', () => {
    const { divisions: _divisions, ...whole } = result;
    const { filtered_out: _filtered, ...counts } = result.counts;
    const text = formatExportResult({ ...whole, counts, files: [file('shifts.csv'), file('rejected.csv')] });
    expect(text).not.toContain('filtered out');
    expect(text).toContain('files             shifts.csv, rejected.csv, manifest.json');
  });
});
