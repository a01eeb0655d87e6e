import { describe, expect, it } from 'vitest';
import type { GroupStats, RegionSummary, ShopSummary } from '../../src/domain/summary.js';
import { DIVISION_SUMMARY_COLUMNS, USER_SUMMARY_COLUMNS } from '../../src/domain/summary-columns.js';
import {
  LOWEST_SHOPS,
  lowestShops,
  type Manifest,
  ManifestError,
  manifestStatistics,
  regionRates,
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

/** Group statistics with `matched` of `checked` starts (and finishes) matched among `shifts`. */
function stats(shifts: number, checked: number, matched: number): GroupStats {
  return {
    ...overall,
    shifts,
    startChecked: checked,
    startMatched: matched,
    finishChecked: checked,
    finishMatched: Math.min(checked, matched + 1),
  };
}

function shop(shopId: number, shifts: number, checked: number, matched: number): ShopSummary {
  return {
    shopId,
    shopSap: String(shopId).padStart(4, '0'),
    shopLocality: `Shop ${shopId}`,
    regionName: 'East',
    divisionName: 'North',
    stats: stats(shifts, checked, matched),
  };
}

describe('the period at a glance', () => {
  it('gives each region its shifts and start and finish match rates, rounded as the summaries are', () => {
    const regions: RegionSummary[] = [
      { regionId: 4, regionName: 'East', divisionId: 3, divisionName: 'North', stats: stats(3, 3, 2) },
      { regionId: 5, regionName: 'West', divisionId: 3, divisionName: 'North', stats: stats(2, 0, 0) },
    ];
    expect(regionRates(regions)).toEqual([
      { region_id: 4, region_name: 'East', shifts: 3, start_match_rate: 0.6667, finish_match_rate: 1 },
      { region_id: 5, region_name: 'West', shifts: 2, start_match_rate: null, finish_match_rate: null },
    ]);
  });

  it('keeps the five shops with the lowest start match rate, lowest first, the busier first among equals', () => {
    const shops = [
      shop(1, 10, 10, 9),
      shop(2, 10, 10, 1),
      shop(3, 4, 0, 0), // nothing checked: not ranked
      shop(4, 2, 2, 1),
      shop(5, 20, 20, 10),
      shop(6, 10, 10, 10),
      shop(7, 10, 10, 3),
      shop(8, 10, 10, 8),
    ];
    expect(lowestShops(shops).map((s) => [s.shop_id, s.start_match_rate])).toEqual([
      [2, 0.1],
      [7, 0.3],
      [5, 0.5],
      [4, 0.5],
      [8, 0.8],
    ]);
    expect(lowestShops(shops)).toHaveLength(LOWEST_SHOPS);
    expect(lowestShops(shops)[0]).toEqual({
      shop_id: 2,
      shop_sap: '0002',
      shop_name: 'Shop 2',
      region_name: 'East',
      shifts: 10,
      start_match_rate: 0.1,
    });
  });

  it('keeps fewer shops when fewer had a start checked', () => {
    expect(lowestShops([shop(3, 4, 0, 0), shop(9, 1, 1, 1)]).map((s) => s.shop_id)).toEqual([9]);
  });

  it('reads back a division with its statistics, regions and lowest shops, and the export with its divisions', () => {
    const m: Manifest = {
      ...manifest(),
      divisions: [
        {
          division_id: 3,
          division_name: 'North',
          shifts: 4,
          changed: true,
          statistics: manifestStatistics(overall),
          region_rates: [
            { region_id: 4, region_name: 'East', shifts: 4, start_match_rate: 0.5, finish_match_rate: null },
          ],
          lowest_shops: lowestShops([shop(1, 4, 3, 2)]),
        },
      ],
      division_rates: [
        {
          division_id: 3,
          division_name: 'North',
          shifts: 4,
          start_match_rate: 0.6667,
          finish_match_rate: null,
        },
      ],
      lowest_shops: lowestShops([shop(1, 4, 3, 2)]),
      match_rate_threshold: 0.8,
    };
    expect(parseManifest(renderManifest(m))).toEqual(m);
  });

  it('refuses more than five lowest shops, so the manifest stays small', () => {
    const six = [1, 2, 3, 4, 5, 6].map((id) => lowestShops([shop(id, 1, 1, 0)])[0]!);
    expect(() => renderManifest({ ...manifest(), lowest_shops: six })).toThrow(ManifestError);
  });
});
