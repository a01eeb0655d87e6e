// An export split by division, end to end but in process: the sandbox over HTTP, ConfiguredExport
// into temporary folders. The same period is exported whole (the reference) and split; every file
// of every division folder is read back — CSV records, the workbook's XML parts, Parquet through
// DuckDB — and must hold that division's rows and nothing of another division: no foreign shift
// id, user login or display name. Also: the manifest's division_id on every file and its divisions
// list, a re-run that changes nothing marking every division unchanged, the Overview charting the
// division's regions, the report read once, and a filter's rows counted as filtered_out.

import { GetObjectCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExportConfig } from '../../src/config/export-config.js';
import { loadS3Config } from '../../src/config/s3-config.js';
import { loadWfmConfig, requireUpstream } from '../../src/config/wfm-config.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import { ConfiguredExport } from '../../src/export/configured-export.js';
import type { ExportResult, ExportScope } from '../../src/export/run-export.js';
import { silentLogger } from '../../src/logger.js';
import type { Manifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { csvRecordsUnguarded, readParquet } from '../support/parquet-reader.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startTestS3Server } from '../support/s3-server.js';
import { zipEntries } from '../support/workbook-xml.js';

const PERIOD = { from: '2024-03-01', to: '2024-03-31' };
const FORMATS = ['csv', 'xlsx', 'parquet'] as const;
const column = (name: string): number => SHIFT_COLUMNS.findIndex((c) => c.name === name);
const ID = column('shift_id');
const LOGIN = column('user_login');
const NAME = column('user_display_name');
const DIVISION = column('division_id');
const REGION_NAME = column('region_name');
const MANAGERS = column('division_managers');

let sandbox: RunningSandbox;
let root: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  root = mkdtempSync(join(tmpdir(), 'division-split-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function exportTo(
  dest: string,
  scope: Omit<ExportScope, 'period' | 'formats'> = {},
  settings: Record<string, string> = {},
): Promise<ExportResult> {
  const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN, ...settings };
  const configured = await ConfiguredExport.open({
    dest,
    exportConfig: loadExportConfig(env),
    wfm: requireUpstream(loadWfmConfig(env)),
    s3Config: () => loadS3Config(env),
    logger: silentLogger,
  });
  try {
    return await configured.run({ period: PERIOD, formats: FORMATS, ...scope });
  } finally {
    await configured.close();
  }
}

const xmlEscaped = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** True when `text` holds `token` as a whole word: a login is not found inside a longer one. */
function holds(text: string, token: string): boolean {
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}._@-])${escaped}(?![\\p{L}\\p{N}._@-])`, 'u').test(text);
}

/** Every text part of a workbook, joined. */
function workbookText(bytes: Buffer): string {
  return [...zipEntries(bytes).entries()]
    .filter(([name]) => /\.(xml|rels)$/.test(name))
    .map(([, part]) => part.toString('utf8'))
    .join('\n');
}

describe('an export split by division', () => {
  let whole: ExportResult;
  let split: ExportResult;
  let reference: string[][];
  const requestsBefore = { report: 0 };

  beforeAll(async () => {
    whole = await exportTo(join(root, 'whole'));
    reference = csvRecordsUnguarded(
      await readFile(join(whole.location, 'shifts.csv'), 'utf8'),
      SHIFT_COLUMNS,
    );
    requestsBefore.report = sandbox.requestCount('wfm_timers');
    split = await exportTo(join(root, 'split'), { split: 'division' });
  }, 120_000);

  it('reads the report once however many divisions there are', () => {
    expect(split.manifest.divisions?.length).toBeGreaterThan(3);
    expect(sandbox.requestCount('wfm_timers') - requestsBefore.report).toBe(whole.upstream?.requests ?? NaN);
    expect(split.upstream?.requests).toBe(whole.upstream?.requests);
  });

  it('holds only the division folders, rejected.csv and manifest.json (and row-hashes.bin) at the top', async () => {
    const top = (await readdir(split.location)).filter((name) => !name.startsWith('.'));
    expect(top.sort()).toEqual(['divisions', 'manifest.json', 'rejected.csv', 'row-hashes.bin']);
    const folders = await readdir(join(split.location, 'divisions'));
    expect(folders.map(Number).sort((a, b) => a - b)).toEqual(
      split.manifest.divisions?.map((d) => d.division_id),
    );
    for (const folder of folders) {
      expect((await readdir(join(split.location, 'divisions', folder))).sort()).toEqual([
        'row-hashes.bin',
        'shifts.csv',
        'shifts.parquet',
        'shifts.xlsx',
        'summary_by_day.csv',
        'summary_by_division.csv',
        'summary_by_region.csv',
        'summary_by_shop.csv',
        'summary_by_user.csv',
      ]);
    }
  });

  it('lists every file with its division_id, and every division with its shifts, all changed the first time', () => {
    const m: Manifest = split.manifest;
    for (const file of m.files) {
      const match = /^divisions\/(\d+)\//.exec(file.path);
      expect(file.division_id, file.path).toBe(match === null ? undefined : Number(match[1]));
    }
    const expected = new Map<number, number>();
    for (const record of reference) {
      const id = Number(record[DIVISION]);
      expected.set(id, (expected.get(id) ?? 0) + 1);
    }
    expect(m.divisions?.map((d) => [d.division_id, d.shifts])).toEqual(
      [...expected.entries()].sort(([a], [b]) => a - b),
    );
    expect(m.divisions?.every((d) => d.changed === true && d.division_name !== '')).toBe(true);
    expect(m.counts).toEqual(whole.manifest.counts);
    expect(m.statistics).toEqual(whole.manifest.statistics);
    const shiftsFiles = m.files.filter((f) => f.name === 'shifts.csv');
    expect(shiftsFiles.reduce((sum, f) => sum + f.rows, 0)).toBe(m.counts.exported);
  });

  it("gives every division the figures its mail shows: the whole export's rates of it, its regions and lowest shops", () => {
    const m: Manifest = split.manifest;
    for (const division of m.divisions ?? []) {
      const rates = whole.manifest.division_rates?.find((d) => d.division_id === division.division_id);
      expect(division.statistics?.['shifts']).toBe(division.shifts);
      expect(division.statistics?.['start_match_rate']).toBe(rates?.start_match_rate);
      expect(division.statistics?.['finish_match_rate']).toBe(rates?.finish_match_rate);
      expect(division.region_rates?.reduce((sum, r) => sum + r.shifts, 0)).toBe(division.shifts);
      const lowest = division.lowest_shops ?? [];
      expect(lowest.length).toBeGreaterThan(0);
      expect(lowest.length).toBeLessThanOrEqual(5);
      const shown = lowest.map((s) => s.start_match_rate);
      expect(shown).toEqual([...shown].sort((a, b) => a - b));
    }
    expect(whole.manifest.division_rates?.map((d) => d.division_id)).toEqual(
      expect.arrayContaining((m.divisions ?? []).map((d) => d.division_id)),
    );
    expect(whole.manifest.lowest_shops?.length).toBe(5);
    expect(m.match_rate_threshold).toBeTypeOf('number');
  });

  it('gives every division its own rows in every file, and nothing of another division', async () => {
    for (const division of split.manifest.divisions ?? []) {
      const id = division.division_id;
      const own = reference.filter((r) => Number(r[DIVISION]) === id);
      const others = reference.filter((r) => Number(r[DIVISION]) !== id);
      const ownLogins = new Set(own.map((r) => r[LOGIN]));
      const ownNames = new Set(own.map((r) => r[NAME]));
      const foreignIds = new Set(others.map((r) => r[ID]));
      // The division's own managers are named on its rows; a namesake elsewhere is not a leak.
      const managers = own.map((r) => r[MANAGERS] ?? '').join('; ');
      const foreign = (values: (string | undefined)[], owned: Set<string | undefined>): string[] =>
        [...new Set(values.map((v) => v ?? ''))].filter((v) => !owned.has(v) && !holds(managers, v));
      const foreignLogins = foreign(
        others.map((r) => r[LOGIN]),
        ownLogins,
      );
      const foreignNames = foreign(
        others.map((r) => r[NAME]),
        ownNames,
      );
      const folder = join(split.location, 'divisions', String(id));

      // shifts.csv: exactly its rows, in report order, the same records as the whole export's.
      const csv = csvRecordsUnguarded(await readFile(join(folder, 'shifts.csv'), 'utf8'), SHIFT_COLUMNS);
      expect(csv).toEqual(own);
      const texts: [string, string][] = [];
      for (const name of await readdir(folder)) {
        if (name.endsWith('.csv')) texts.push([name, await readFile(join(folder, name), 'utf8')]);
      }
      const workbook = workbookText(await readFile(join(folder, 'shifts.xlsx')));
      // The search finds what is there: every own login, in shifts.csv and in the workbook.
      expect(foreignLogins.length).toBeGreaterThan(0);
      for (const login of ownLogins) {
        expect(holds(texts.find(([name]) => name === 'shifts.csv')?.[1] ?? '', login ?? '')).toBe(true);
        expect(holds(workbook, xmlEscaped(login ?? ''))).toBe(true);
      }
      for (const login of foreignLogins) {
        for (const [name, text] of texts) expect(holds(text, login), `${name}: ${login}`).toBe(false);
        expect(holds(workbook, xmlEscaped(login)), `shifts.xlsx: ${login}`).toBe(false);
      }
      for (const person of foreignNames) {
        for (const [name, text] of texts) expect(holds(text, person), `${name}: ${person}`).toBe(false);
        expect(holds(workbook, xmlEscaped(person)), `shifts.xlsx: ${person}`).toBe(false);
      }
      // Shift ids are numbers: no cell of the workbook holds a foreign one.
      for (const value of workbook.matchAll(/<v>(\d+)<\/v>/g))
        expect(foreignIds.has(value[1] ?? '')).toBe(false);

      const parquet = await readParquet(join(folder, 'shifts.parquet'), SHIFT_COLUMNS);
      expect(parquet.rows.map((r) => String(r[ID]))).toEqual(own.map((r) => r[ID]));
      expect(parquet.rows.every((r) => ownLogins.has(String(r[LOGIN])))).toBe(true);
    }
  }, 120_000);

  it("charts the division's regions on the workbook's Overview", async () => {
    const division = split.manifest.divisions?.find((d) => d.shifts > 100);
    expect(division).toBeDefined();
    const id = division?.division_id ?? NaN;
    const bytes = await readFile(join(split.location, 'divisions', String(id), 'shifts.xlsx'));
    const parts = zipEntries(bytes);
    const charts = [...parts.entries()].filter(([name]) => /^xl\/charts\/chart\d+\.xml$/.test(name));
    const chartText = charts.map(([, bytes]) => bytes.toString('utf8')).join('\n');
    expect(chartText).toContain('Start match rate by region, lowest first');
    expect(chartText).not.toContain('by division');
    // The bars' categories are the Overview's region rows: each region of the division is there.
    const workbook = workbookText(bytes);
    const regions = new Set(
      reference.filter((r) => Number(r[DIVISION]) === id).map((r) => r[REGION_NAME] ?? ''),
    );
    expect(regions.size).toBeGreaterThan(0);
    for (const region of regions) expect(workbook).toContain(xmlEscaped(region));
    expect(workbook).toContain('Regions below the threshold');
  });

  it('marks every division unchanged when the same period is exported again unchanged', async () => {
    const again = await exportTo(join(root, 'split'), { split: 'division' });
    expect(again.manifest.divisions?.map((d) => [d.division_id, d.changed])).toEqual(
      split.manifest.divisions?.map((d) => [d.division_id, false]),
    );
    expect(again.manifest.changes).toEqual({
      previous_export_id: split.manifest.export_id,
      added: 0,
      removed: 0,
      changed: 0,
    });
  }, 120_000);

  it("keeps only a filter's divisions and counts the other rows as filtered_out", async () => {
    const chosen = (split.manifest.divisions ?? []).slice(0, 2);
    const result = await exportTo(join(root, 'filtered'), {
      split: 'division',
      filter: { divisions: chosen.map((d) => d.division_id) },
    });
    const m = result.manifest;
    expect(m.divisions?.map((d) => [d.division_id, d.shifts])).toEqual(
      chosen.map((d) => [d.division_id, d.shifts]),
    );
    expect(m.counts.exported).toBe(chosen.reduce((sum, d) => sum + d.shifts, 0));
    const c = m.counts;
    expect(c.filtered_out).toBeGreaterThan(0);
    expect(c.fetched).toBe(
      c.exported + c.rejected + c.duplicates + c.outside_window + (c.filtered_out ?? NaN),
    );
    expect(c.rejected).toBe(whole.manifest.counts.rejected);
  }, 120_000);

  it('stores each division file in S3 under the version, the same bytes as in a folder', async () => {
    const s3 = await startTestS3Server();
    process.env['AWS_ACCESS_KEY_ID'] = s3.accessKeyId;
    process.env['AWS_SECRET_ACCESS_KEY'] = s3.secretAccessKey;
    const client = s3.client();
    try {
      const bucket = await s3.createBucket();
      const result = await exportTo(
        `s3://${bucket}/exports`,
        { split: 'division' },
        { S3_ENDPOINT: s3.endpoint, S3_FORCE_PATH_STYLE: 'true' },
      );
      const m = result.manifest;
      expect(m.divisions).toEqual(split.manifest.divisions);
      const prefix = `exports/${PERIOD.from}_${PERIOD.to}`;
      for (const file of m.files.filter((f) => f.name === 'shifts.csv')) {
        expect(file.path).toBe(`${m.export_id}/divisions/${file.division_id}/shifts.csv`);
        const object = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/${file.path}` }),
        );
        const stored = Buffer.from(await object.Body!.transformToByteArray());
        const local = await readFile(
          join(split.location, 'divisions', String(file.division_id), 'shifts.csv'),
        );
        expect(stored.equals(local), file.path).toBe(true);
      }
    } finally {
      client.destroy();
      await s3.cleanup();
      await s3.stop();
    }
  }, 120_000);
});
