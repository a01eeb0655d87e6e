import { describe, expect, it } from 'vitest';
import type { GroupStats } from '../../src/domain/summary.js';
import { DIVISION_SUMMARY_COLUMNS, USER_SUMMARY_COLUMNS } from '../../src/domain/summary-columns.js';
import {
  type Manifest,
  ManifestError,
  manifestStatistics,
  parseManifest,
  renderManifest,
  STATISTIC_COLUMNS,
} from '../../src/render/manifest.js';

const overall: GroupStats = {
  shifts: 4,
  durationSeconds: 4 * 8 * 3600 + 1800,
  startChecked: 3,
  startMatched: 2,
  finishChecked: 0,
  finishMatched: 0,
  bothChecked: 0,
  bothMatched: 0,
  noLocation: 1,
  startDistanceMedian: 120,
  startDistanceP90: 288.5,
  finishDistanceMedian: null,
  finishDistanceP90: null,
  autoFinished: 1,
};

function manifest(): Manifest {
  return {
    export_id: '2026-11-14_2026-11-20-20261121T060000Z',
    period: { from: '2026-11-14', to: '2026-11-20' },
    generated_at: '2026-11-21T06:00:00.000Z',
    tool: { name: 'shift-export', version: '0.1.0' },
    source: { base_url: 'https://wfm.example.com/api' },
    counts: { fetched: 7, exported: 4, rejected: 1, duplicates: 1, outside_window: 1, flagged: 1 },
    statistics: manifestStatistics(overall),
    files: [
      {
        name: 'shifts.csv',
        path: 'shifts.csv',
        bytes: 2048,
        sha256: 'a'.repeat(64),
        rows: 4,
        content_type: 'text/csv; charset=utf-8',
      },
    ],
  };
}

/** The same members inserted in reverse order, at every level. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversed(v)]),
    );
  }
  return value;
}

describe('manifest statistics', () => {
  it('are named exactly like the statistic columns of the summary files', () => {
    const keys = new Set(['division_id', 'division_external_id', 'division_name']);
    const divisionStats = DIVISION_SUMMARY_COLUMNS.filter((c) => !keys.has(c.name)).map((c) => c.name);
    expect(STATISTIC_COLUMNS.map((c) => c.name)).toEqual(divisionStats);
    expect(divisionStats).toHaveLength(18);
    expect(USER_SUMMARY_COLUMNS.map((c) => c.name).slice(3)).toEqual(divisionStats);
  });

  it('hold the values the summary columns print, null where a rate has no denominator', () => {
    expect(manifestStatistics(overall)).toEqual({
      shifts: 4,
      hours: 32.5,
      start_checked: 3,
      start_matched: 2,
      start_match_rate: 0.6667,
      finish_checked: 0,
      finish_matched: 0,
      finish_match_rate: null,
      both_checked: 0,
      both_matched: 0,
      both_match_rate: null,
      no_location: 1,
      start_distance_median: 120,
      start_distance_p90: 288.5,
      finish_distance_median: null,
      finish_distance_p90: null,
      auto_finished: 1,
      auto_finished_rate: 0.25,
    });
  });
});

describe('renderManifest and parseManifest', () => {
  it('read back what was written', () => {
    const text = renderManifest(manifest());
    expect(parseManifest(text)).toEqual(manifest());
  });

  it('write pretty JSON with a trailing newline', () => {
    const text = renderManifest(manifest());
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "export_id": "2026-11-14_2026-11-20-20261121T060000Z",\n');
    expect(JSON.parse(text)).toEqual(manifest());
  });

  it('write the same text whatever order the members were built in', () => {
    const text = renderManifest(manifest());
    expect(renderManifest(reversed(manifest()) as Manifest)).toBe(text);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'export_id',
      'period',
      'generated_at',
      'tool',
      'source',
      'counts',
      'statistics',
      'files',
    ]);
    expect(Object.keys((JSON.parse(text) as Manifest).statistics)).toEqual(
      STATISTIC_COLUMNS.map((c) => c.name),
    );
  });

  it('keep the optional previous export and changes', () => {
    const withChanges: Manifest = {
      ...manifest(),
      previous: { export_id: 'earlier', generated_at: '2026-11-20T06:00:00+01:00' },
      changes: { previous_export_id: 'earlier', added: 3, removed: 1, changed: 2 },
    };
    expect(parseManifest(renderManifest(withChanges))).toEqual(withChanges);
  });

  it('keep changes: null with the reason they were not counted', () => {
    const notCounted: Manifest = {
      ...manifest(),
      changes: null,
      changes_unavailable: {
        reason: 'row_hashes_not_written',
        message: 'the row fingerprints could not be written to the temp folder /tmp: ENOSPC',
      },
    };
    expect(parseManifest(renderManifest(notCounted))).toEqual(notCounted);
    expect(JSON.parse(renderManifest(notCounted))).toMatchObject({ changes: null });
  });

  it.each<[string, (m: Record<string, unknown>) => void]>([
    ['changes: null without a reason', (m) => (m.changes = null)],
    [
      'a reason beside counted changes',
      (m) => {
        m.changes = { previous_export_id: 'earlier', added: 0, removed: 0, changed: 0 };
        m.changes_unavailable = { reason: 'previous_row_hashes_missing', message: 'none' };
      },
    ],
    [
      'an unknown reason',
      (m) => {
        m.changes = null;
        m.changes_unavailable = { reason: 'disk_full', message: 'ENOSPC' };
      },
    ],
    [
      'a reason with an extra member',
      (m) => {
        m.changes = null;
        m.changes_unavailable = { reason: 'row_hashes_not_written', message: 'ENOSPC', path: '/tmp' };
      },
    ],
  ])('refuse %s', (_name, spoil) => {
    const spoilt = manifest() as unknown as Record<string, unknown>;
    spoil(spoilt);
    expect(() => parseManifest(JSON.stringify(spoilt))).toThrow(ManifestError);
  });

  it.each<[string, (m: Record<string, unknown>) => void]>([
    [
      'a token beside the base URL',
      (m) => (m.source = { base_url: 'https://wfm.example.com', token: 's3cr3t' }),
    ],
    ['an unknown top-level member', (m) => (m.authorization = 'Bearer s3cr3t')],
    ['an unknown count', (m) => (m.counts = { ...(m.counts as object), skipped: 1 })],
    ['an unknown statistic', (m) => (m.statistics = { ...(m.statistics as object), start_match_percent: 1 })],
    ['a missing statistic', (m) => (m.statistics = { shifts: 4 })],
    ['an unknown file member', (m) => (m.files = [{ ...(m.files as object[])[0], etag: 'x' }])],
    ['credentials in the base URL', (m) => (m.source = { base_url: 'https://user:s3cr3t@wfm.example.com' })],
    ['a query in the base URL', (m) => (m.source = { base_url: 'https://wfm.example.com/?token=s3cr3t' })],
    ['a base URL that is not http(s)', (m) => (m.source = { base_url: 'file:///etc/passwd' })],
    ['generated_at without a zone', (m) => (m.generated_at = '2026-11-21T06:00:00')],
    ['a period that ends before it starts', (m) => (m.period = { from: '2026-11-20', to: '2026-11-14' })],
    ['a date that does not exist', (m) => (m.period = { from: '2026-02-29', to: '2026-03-01' })],
    ['a sha256 in capitals', (m) => (m.files = [{ ...(m.files as object[])[0], sha256: 'A'.repeat(64) }])],
    ['a negative count', (m) => (m.counts = { ...(m.counts as object), rejected: -1 })],
    ['another tool', (m) => (m.tool = { name: 'other', version: '1' })],
  ])('refuse %s', (_name, spoil) => {
    const spoilt = manifest() as unknown as Record<string, unknown>;
    spoil(spoilt);
    expect(() => parseManifest(JSON.stringify(spoilt))).toThrow(ManifestError);
    expect(() => renderManifest(spoilt as unknown as Manifest)).toThrow(/invalid/);
  });

  it('say which member is wrong, with a stable code', () => {
    const spoilt = { ...manifest(), source: { base_url: 'https://wfm.example.com', token: 's3cr3t' } };
    try {
      parseManifest(JSON.stringify(spoilt));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ManifestError);
      expect((error as ManifestError).code).toBe('MANIFEST_INVALID');
      expect((error as ManifestError).message).toMatch(/token/);
      expect((error as ManifestError).message).toMatch(/source/);
    }
  });

  it('refuse text that is not JSON', () => {
    expect(() => parseManifest('{"export_id": ')).toThrow(/manifest.json is not JSON/);
  });
});
