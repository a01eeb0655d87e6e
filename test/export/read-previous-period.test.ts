// The export's look for the definition's previous period: the first published candidate, null on
// the first period, and null with a warning (never a failed export) when a manifest cannot be read.

import { describe, expect, it } from 'vitest';
import type { Period } from '../../src/domain/period.js';
import { readPreviousPeriod } from '../../src/export/read-previous-period.js';
import { manifestStatistics, renderManifest, type Manifest } from '../../src/render/manifest.js';
import { capturingLogger } from '../destinations/export-helpers.js';
import { stats } from '../render/xlsx/shift-fixtures.js';

const WEEK: Period = { from: '2026-11-09', to: '2026-11-15' };
const WEEK_BEFORE: Period = { from: '2026-11-02', to: '2026-11-08' };

function manifestOf(period: Period): string {
  const manifest: Manifest = {
    export_id: `exp-${period.from}`,
    period,
    generated_at: '2026-11-09T06:00:00.000Z',
    tool: { name: 'shift-export', version: '0.1.0' },
    source: { base_url: 'https://wfm.example.com' },
    counts: { fetched: 10, exported: 10, rejected: 0, duplicates: 0, outside_window: 0, flagged: 0 },
    statistics: manifestStatistics(stats()),
    files: [],
  };
  return renderManifest(manifest);
}

describe('readPreviousPeriod', () => {
  it('finds the week before, read through the destination', async () => {
    const asked: string[] = [];
    const { logger } = capturingLogger();
    const found = await readPreviousPeriod(
      {
        readManifest: (period) => {
          asked.push(period.from);
          return Promise.resolve(period.from === WEEK_BEFORE.from ? manifestOf(WEEK_BEFORE) : undefined);
        },
      },
      WEEK,
      logger,
    );
    expect(found?.period).toEqual(WEEK_BEFORE);
    expect(found?.manifest.export_id).toBe('exp-2026-11-02');
    expect(asked).toEqual([WEEK_BEFORE.from]);
  });

  it('is null on the first period', async () => {
    const { logger } = capturingLogger();
    expect(
      await readPreviousPeriod({ readManifest: () => Promise.resolve(undefined) }, WEEK, logger),
    ).toBeNull();
  });

  it('is null with a warning when the manifest cannot be read or is not a manifest', async () => {
    for (const readManifest of [
      () => Promise.reject(new Error('EACCES: permission denied')),
      () => Promise.resolve('{"not": "a manifest"}'),
    ]) {
      const { logger, lines } = capturingLogger();
      expect(await readPreviousPeriod({ readManifest }, WEEK, logger)).toBeNull();
      const warning = lines().find((line) => line['level'] === 40);
      expect(warning?.['msg']).toBe(
        "the previous period's manifest could not be read; the Overview compares with nothing",
      );
      expect(String(warning?.['reason'])).toMatch(/EACCES|manifest\.json is invalid/);
    }
  });
});
