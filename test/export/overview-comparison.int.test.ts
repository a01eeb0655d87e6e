// The workbook's Overview compared with the previous period, end to end but in process: the sandbox
// over HTTP, ConfiguredExport exporting two consecutive weeks into one local folder, whole and split
// by division. The first week's Overview says there is nothing to compare with yet; the second's
// names the first week and shows, beside each rate, the difference of the two published manifests'
// rates in percentage points — the same figures the delivery e-mail reads — for the whole export
// and its divisions, and for a division's workbook and its regions.

import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Period } from '../../src/domain/period.js';
import type { ExportResult, ExportScope } from '../../src/export/run-export.js';
import { textFormat } from '../../src/i18n/text-format.js';
import type { ManifestStatistics } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { runConfiguredExport } from '../support/run-configured-export.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { readWorkbook, rowValues, sheet } from '../render/xlsx/workbook-io.js';

const FIRST_WEEK: Period = { from: '2024-03-04', to: '2024-03-10' };
const SECOND_WEEK: Period = { from: '2024-03-11', to: '2024-03-17' };
const FORMATS = ['csv', 'xlsx'] as const;

let sandbox: RunningSandbox;
let root: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  root = mkdtempSync(join(tmpdir(), 'overview-comparison-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function exportTo(
  dest: string,
  period: Period,
  scope: Omit<ExportScope, 'period' | 'formats'> = {},
): Promise<ExportResult> {
  const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN };
  return (await runConfiguredExport(env, period, FORMATS, undefined, scope)).result;
}

async function overviewOf(path: string): Promise<ExcelJS.Worksheet> {
  return sheet(await readWorkbook(await readFile(path)), 'Overview');
}

/** The values of the first row whose column A holds `label`. */
function valuesOf(overview: ExcelJS.Worksheet, label: string): unknown[] {
  for (let row = 1; row <= overview.rowCount; row++) {
    const values = rowValues(overview, row);
    if (values[0] === label) return values;
  }
  throw new Error(`no "${label}" row`);
}

/** The bar table's rows (name → its change), under the header whose column A is `header`. */
function groupChanges(overview: ExcelJS.Worksheet, header: string): Map<string, unknown> {
  const changes = new Map<string, unknown>();
  let row = 1;
  while (row <= overview.rowCount && rowValues(overview, row)[0] !== header) row++;
  expect(rowValues(overview, row)[3]).toBe('Change vs previous period');
  for (row++; row <= overview.rowCount; row++) {
    const values = rowValues(overview, row);
    if (typeof values[0] !== 'string' || values[0] === '') break;
    changes.set(values[0], values[3] ?? null);
  }
  return changes;
}

/** This week's rate less last week's, in percentage points, from the two manifests. */
function points(now: number | null | undefined, before: number | null | undefined): number | null {
  return now === null || now === undefined || before === null || before === undefined
    ? null
    : (now - before) * 100;
}

/** The headline rates' changes as the Overview shows them, against the manifests' difference. */
function expectHeadlineChanges(
  overview: ExcelJS.Worksheet,
  now: ManifestStatistics,
  before: ManifestStatistics,
) {
  const rates = [
    ['Start match rate', 'start_match_rate'],
    ['Finish match rate', 'finish_match_rate'],
    ['Start and finish match rate', 'both_match_rate'],
    ['Share auto-finished', 'auto_finished_rate'],
  ] as const;
  for (const [label, name] of rates) {
    const change = valuesOf(overview, label)[2];
    const expected = points(now[name], before[name]);
    expect(expected, name).not.toBeNull();
    expect(change, label).toBeCloseTo(expected ?? NaN, 9);
  }
  expect(valuesOf(overview, 'Headline')).toEqual(['Headline', 'Value', 'Change vs previous period']);
}

describe('the Overview of two consecutive weeks exported into one folder', () => {
  let first: ExportResult;
  let second: ExportResult;
  let firstSplit: ExportResult;
  let secondSplit: ExportResult;

  beforeAll(async () => {
    first = await exportTo(join(root, 'whole'), FIRST_WEEK);
    second = await exportTo(join(root, 'whole'), SECOND_WEEK);
    firstSplit = await exportTo(join(root, 'split'), FIRST_WEEK, { split: 'division' });
    secondSplit = await exportTo(join(root, 'split'), SECOND_WEEK, { split: 'division' });
  }, 240_000);

  it('says on the first week that there is nothing to compare with yet', async () => {
    const overview = await overviewOf(join(first.location, 'shifts.xlsx'));
    expect(valuesOf(overview, 'Compared with')[1]).toBe(
      'nothing yet: this is the first period of this report',
    );
    expect(valuesOf(overview, 'Headline')).toEqual(['Headline', 'Value']);
  });

  it("shows on the second week each rate's difference from the first week's manifest, and names that week", async () => {
    const overview = await overviewOf(join(second.location, 'shifts.xlsx'));
    const period = textFormat('en').period(FIRST_WEEK.from, FIRST_WEEK.to);
    expect(valuesOf(overview, 'Compared with')[1]).toBe(
      `the previous period, ${period}; changes in percentage points (pp)`,
    );
    expectHeadlineChanges(overview, second.manifest.statistics, first.manifest.statistics);
    // The weeks differ: a comparison of equal figures would prove little.
    expect(valuesOf(overview, 'Start match rate')[2]).not.toBe(0);
  });

  it("gives each division the difference of its start match rate in the two manifests' division rates", async () => {
    const overview = await overviewOf(join(second.location, 'shifts.xlsx'));
    const changes = groupChanges(overview, 'Division');
    const before = new Map(first.manifest.division_rates?.map((d) => [d.division_id, d.start_match_rate]));
    const rated = (second.manifest.division_rates ?? []).filter((d) => d.start_match_rate !== null);
    expect(rated.length).toBeGreaterThan(3);
    expect([...changes.keys()].sort()).toEqual(rated.map((d) => d.division_name).sort());
    for (const d of rated) {
      const expected = points(d.start_match_rate, before.get(d.division_id));
      const change = changes.get(d.division_name);
      if (expected === null) expect(change, d.division_name).toBeNull();
      else expect(change, d.division_name).toBeCloseTo(expected, 9);
    }
  });

  it("compares a division's workbook with that division's entry of the previous manifest, region by region", async () => {
    const division = secondSplit.manifest.divisions?.find((d) => d.shifts > 100);
    const id = division?.division_id ?? NaN;
    const then = firstSplit.manifest.divisions?.find((d) => d.division_id === id);
    expect(division?.statistics).toBeDefined();
    expect(then?.statistics).toBeDefined();
    const overview = await overviewOf(join(secondSplit.location, 'divisions', String(id), 'shifts.xlsx'));
    expectHeadlineChanges(overview, division?.statistics ?? {}, then?.statistics ?? {});
    // Not the whole export's change: the division's own.
    const wholeChange = points(
      secondSplit.manifest.statistics['start_match_rate'],
      firstSplit.manifest.statistics['start_match_rate'],
    );
    expect(valuesOf(overview, 'Start match rate')[2]).not.toBeCloseTo(wholeChange ?? NaN, 6);

    const changes = groupChanges(overview, 'Region');
    const before = new Map(then?.region_rates?.map((r) => [r.region_id, r.start_match_rate]));
    const rated = (division?.region_rates ?? []).filter((r) => r.start_match_rate !== null);
    expect(rated.length).toBeGreaterThan(1);
    expect(new Set(rated.map((r) => r.region_name)).size).toBe(rated.length);
    expect([...changes.keys()].sort()).toEqual(rated.map((r) => r.region_name).sort());
    for (const r of rated) {
      const expected = points(r.start_match_rate, before.get(r.region_id));
      const change = changes.get(r.region_name);
      if (expected === null) expect(change, r.region_name).toBeNull();
      else expect(change, r.region_name).toBeCloseTo(expected, 9);
    }
  });
});
