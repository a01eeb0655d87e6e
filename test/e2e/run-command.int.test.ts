// `shift-export run` as a child process against the sandbox over HTTP, files read back with an
// independent CSV parser (csv-parse), every number cross-checked.

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import { parseManifest } from '../../src/render/manifest.js';
import { cliEnv, runCli } from '../support/cli.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { tempFolderForTest } from '../support/temp-folder.js';

const PERIOD = { from: '2024-03-25', to: '2024-03-31' };

let sandbox: RunningSandbox;
let baseEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    rows: 3000,
    faults: { wfm_timers: { invalidRowRate: 0.01, duplicateRowRate: 0.01 } },
  });
  baseEnv = cliEnv({
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: SANDBOX_ADMIN_TOKEN,
    WFM_RETRY_BASE_DELAY_MS: '10',
  });
});

afterAll(async () => {
  await sandbox.close();
});

function readCsv(path: string): Record<string, string>[] {
  const text = readFileSync(path, 'utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  return parse(text.slice(1), { columns: true, relax_quotes: false }) as Record<string, string>[];
}

function exportDir(dest: string): string {
  return realpathSync(join(dest, `${PERIOD.from}_${PERIOD.to}`));
}

describe('shift-export run', () => {
  let dest: string;
  let result: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    dest = mkdtempSync(join(tmpdir(), 'run-e2e-'));
    result = await runCli(
      ['run', '--from', PERIOD.from, '--to', PERIOD.to, '--dest', dest, '--format', 'csv'],
      { ...baseEnv, TZ: 'Asia/Kathmandu' },
    );
  });
  afterAll(() => rmSync(dest, { recursive: true, force: true }));

  it('exits 0 and says where the files are', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`published to ${dest}`);
  });

  it('publishes every CSV file and a manifest whose sizes and hashes match the files', () => {
    const dir = exportDir(dest);
    const manifest = parseManifest(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.period).toEqual(PERIOD);
    expect(manifest.source.base_url).toBe(sandbox.url);
    expect(manifest.files.map((f) => f.name).sort()).toEqual(
      [
        'rejected.csv',
        'row-hashes.bin',
        'shifts.csv',
        'summary_by_day.csv',
        'summary_by_division.csv',
        'summary_by_region.csv',
        'summary_by_shop.csv',
        'summary_by_user.csv',
      ].sort(),
    );
    // Beside the files: the manifest, and the owner marker that lets a later export replace this one.
    expect(readdirSync(dir).sort()).toEqual(
      [...manifest.files.map((f) => f.path), 'manifest.json', '.shift-export'].sort(),
    );
    for (const file of manifest.files) {
      const bytes = readFileSync(join(dir, file.path));
      expect(bytes.length, file.name).toBe(file.bytes);
      expect(createHash('sha256').update(bytes).digest('hex'), file.name).toBe(file.sha256);
    }
    // docs/analysts.md: 8 + 16·rows bytes.
    const hashes = manifest.files.find((f) => f.name === 'row-hashes.bin');
    expect(hashes?.bytes).toBe(8 + 16 * manifest.counts.exported);
  });

  it('writes shifts.csv with the contract columns, one row per exported shift, all inside the period', () => {
    const dir = exportDir(dest);
    const manifest = parseManifest(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const text = readFileSync(join(dir, 'shifts.csv'), 'utf8');
    const header = text.slice(1, text.indexOf('\n')).replace(/\r$/, '');
    expect(header.split(',')).toEqual(SHIFT_COLUMNS.map((c) => c.name));
    const rows = readCsv(join(dir, 'shifts.csv'));
    expect(rows.length).toBe(manifest.counts.exported);
    expect(rows.length).toBeGreaterThan(100);
    expect(new Set(rows.map((r) => r['shift_id'])).size).toBe(rows.length);
    for (const row of rows) {
      expect(row['business_date']! >= PERIOD.from && row['business_date']! <= PERIOD.to).toBe(true);
      expect(row['start_local']!.slice(0, 10)).toBe(row['business_date']);
      expect(row['start_local']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(row['start_utc']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(row['start_utc_offset']).toMatch(/^[+-]\d{2}:\d{2}$/);
      const comment = row['comment'] ?? '';
      expect(/^[=+\-@\t\r]/.test(comment), `unguarded comment ${comment}`).toBe(false);
    }
    const c = manifest.counts;
    expect(c.fetched).toBe(c.exported + c.rejected + c.duplicates + c.outside_window);
    expect(c.rejected).toBeGreaterThan(0);
    expect(c.duplicates).toBeGreaterThan(0);
    expect(readCsv(join(dir, 'rejected.csv')).length).toBe(c.rejected);
  });

  it('gives summaries whose shift counts add up to the exported shifts', () => {
    const dir = exportDir(dest);
    const shifts = readCsv(join(dir, 'shifts.csv'));
    for (const name of [
      'summary_by_division.csv',
      'summary_by_day.csv',
      'summary_by_region.csv',
      'summary_by_shop.csv',
      'summary_by_user.csv',
    ]) {
      // summary_by_day.csv counts each day twice: once on its "All divisions" row.
      const rows = readCsv(join(dir, name)).filter((r) => r['division_name'] !== 'All divisions');
      const total = rows.reduce((sum, r) => sum + Number(r['shifts']), 0);
      expect(total, name).toBe(shifts.length);
    }
    const matched = shifts.filter((r) => r['start_location_match'] === 'true').length;
    const checked = shifts.filter((r) => r['start_location_match'] !== '').length;
    const manifest = parseManifest(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.statistics['start_match_rate']).toBeCloseTo(matched / checked, 4);
  });

  it('gives summary_by_day.csv equal to a recomputation from shifts.csv', () => {
    const dir = exportDir(dest);
    const shifts = readCsv(join(dir, 'shifts.csv'));
    const days = readCsv(join(dir, 'summary_by_day.csv'));
    const divisionColumns = Object.keys(readCsv(join(dir, 'summary_by_division.csv'))[0]!);
    const statColumns = divisionColumns.slice(divisionColumns.indexOf('shifts'));
    expect(Object.keys(days[0]!)).toEqual(['business_date', 'division_id', 'division_name', ...statColumns]);

    const divisionName = new Map(shifts.map((r) => [r['division_id']!, r['division_name']!]));
    const expected: Record<string, string>[] = [];
    const dates = [...new Set(shifts.map((r) => r['business_date']!))].sort();
    for (const date of dates) {
      const ofDay = shifts.filter((r) => r['business_date'] === date);
      expected.push({
        business_date: date,
        division_id: '',
        division_name: 'All divisions',
        ...recompute(ofDay),
      });
      const ids = [...new Set(ofDay.map((r) => r['division_id']!))].sort((a, b) => {
        const [na, nb] = [divisionName.get(a)!, divisionName.get(b)!];
        const [fa, fb] = [na.toLowerCase(), nb.toLowerCase()];
        return fa < fb ? -1 : fa > fb ? 1 : na < nb ? -1 : na > nb ? 1 : Number(a) - Number(b);
      });
      for (const id of ids) {
        expected.push({
          business_date: date,
          division_id: id,
          division_name: divisionName.get(id)!,
          ...recompute(ofDay.filter((r) => r['division_id'] === id)),
        });
      }
    }
    expect(dates.length).toBeGreaterThan(3);
    expect(days).toEqual(expected);
  });

  it('writes the same shifts.csv whatever the machine time zone', async () => {
    const other = tempFolderForTest('run-e2e-utc-');
    const utc = await runCli(
      ['run', '--from', PERIOD.from, '--to', PERIOD.to, '--dest', other, '--format', 'csv'],
      { ...baseEnv, TZ: 'UTC' },
    );
    expect(utc.code).toBe(0);
    const a = readFileSync(join(exportDir(dest), 'shifts.csv'));
    const b = readFileSync(join(realpathSync(join(other, `${PERIOD.from}_${PERIOD.to}`)), 'shifts.csv'));
    expect(a.equals(b)).toBe(true);
  });
});

/**
 * The statistic columns of a summary row from shifts.csv rows, as docs/analysts.md defines them: counts,
 * hours and rates rounded half up, Excel's MEDIAN and PERCENTILE.INC(…; 0.9) of the distances.
 */
function recompute(rows: readonly Record<string, string>[]): Record<string, string> {
  const count = (test: (r: Record<string, string>) => boolean): number => rows.filter(test).length;
  const fixed = (value: number | null, places: number): string =>
    value === null ? '' : (Math.round(value * 10 ** places + 1e-9) / 10 ** places).toFixed(places);
  const ratio = (n: number, d: number): string => (d === 0 ? '' : fixed(n / d, 4));
  const percentileInc = (column: string, p: number): string => {
    const values = rows
      .map((r) => r[column]!)
      .filter((v) => v !== '')
      .map(Number)
      .sort((a, b) => a - b);
    if (values.length === 0) return '';
    const rank = p * (values.length - 1);
    const low = Math.floor(rank);
    const high = Math.min(low + 1, values.length - 1);
    return fixed(values[low]! + (rank - low) * (values[high]! - values[low]!), 2);
  };
  const start = (r: Record<string, string>): string => r['start_location_match']!;
  const finish = (r: Record<string, string>): string => r['finish_location_match']!;
  const startChecked = count((r) => start(r) !== '');
  const startMatched = count((r) => start(r) === 'true');
  const finishChecked = count((r) => finish(r) !== '');
  const finishMatched = count((r) => finish(r) === 'true');
  const bothChecked = count((r) => start(r) !== '' && finish(r) !== '');
  const bothMatched = count((r) => start(r) === 'true' && finish(r) === 'true');
  const autoFinished = count((r) => r['auto_finished'] === 'true');
  const seconds = rows.reduce((sum, r) => sum + Number(r['duration_seconds']), 0);
  return {
    shifts: String(rows.length),
    hours: fixed(seconds / 3600, 2),
    start_checked: String(startChecked),
    start_matched: String(startMatched),
    start_match_rate: ratio(startMatched, startChecked),
    finish_checked: String(finishChecked),
    finish_matched: String(finishMatched),
    finish_match_rate: ratio(finishMatched, finishChecked),
    both_checked: String(bothChecked),
    both_matched: String(bothMatched),
    both_match_rate: ratio(bothMatched, bothChecked),
    no_location: String(count((r) => start(r) === '' && finish(r) === '')),
    start_distance_median: percentileInc('start_location_distance', 0.5),
    start_distance_p90: percentileInc('start_location_distance', 0.9),
    finish_distance_median: percentileInc('finish_location_distance', 0.5),
    finish_distance_p90: percentileInc('finish_location_distance', 0.9),
    auto_finished: String(autoFinished),
    auto_finished_rate: ratio(autoFinished, rows.length),
  };
}

describe('shift-export run with a temp folder it cannot write', () => {
  it('publishes without row-hashes.bin and says so in the manifest, the summary and a warning', async () => {
    const dest = tempFolderForTest('run-e2e-tmpdir-');
    // A file where TMPDIR should be a folder: the row fingerprints cannot spill (ENOTDIR), as on a
    // full disk (test/reliability/tmpdir-full.scenario.ts fills a real one).
    const notAFolder = join(dest, 'not-a-folder');
    writeFileSync(notAFolder, '');
    const run = await runCli(
      ['run', '--from', PERIOD.from, '--to', PERIOD.to, '--dest', dest, '--format', 'csv'],
      { ...baseEnv, TMPDIR: join(notAFolder, 'tmp') },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}changes {11}not counted \(row_hashes_not_written\): .*ENOTDIR/m);
    const manifest = parseManifest(readFileSync(join(exportDir(dest), 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f) => f.name)).not.toContain('row-hashes.bin');
    expect(manifest.files.map((f) => f.name)).toContain('shifts.csv');
    expect(manifest.changes).toBeNull();
    expect(manifest.changes_unavailable?.reason).toBe('row_hashes_not_written');
    const warnings = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warnings).toContainEqual(expect.objectContaining({ level: 40, reason: 'row_hashes_not_written' }));
  });
});

describe('shift-export run loads only what the export needs', () => {
  // Each package resolved by the child is named on its stderr (test/support/module-log).
  const moduleLog = pathToFileURL(
    fileURLToPath(new URL('../support/module-log/register.mjs', import.meta.url)),
  ).href;
  const packagesOf = (stderr: string): string[] =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('module-log: '))
      .map((line) => line.slice('module-log: '.length));
  const exportAs = (format: string) =>
    runCli(
      [
        'run',
        '--from',
        PERIOD.from,
        '--to',
        PERIOD.to,
        '--dest',
        tempFolderForTest('modules-'),
        '--format',
        format,
      ],
      { ...baseEnv, NODE_OPTIONS: `--import=${moduleLog}` },
    );

  it('loads neither the AWS SDK, exceljs nor hyparquet-writer for a local CSV export (~15 MB of memory)', async () => {
    const run = await exportAs('csv');
    expect(run.code).toBe(0);
    const packages = packagesOf(run.stderr);
    expect(packages).toContain('undici');
    expect(
      packages.filter((p) => p.startsWith('@aws-sdk/') || p === 'exceljs' || p === 'hyparquet-writer'),
    ).toEqual([]);
  });

  it('loads hyparquet-writer, not exceljs, for a Parquet export', async () => {
    const run = await exportAs('parquet');
    expect(run.code).toBe(0);
    const packages = packagesOf(run.stderr);
    expect(packages).toContain('hyparquet-writer');
    expect(packages.filter((p) => p.startsWith('@aws-sdk/') || p === 'exceljs')).toEqual([]);
  });

  it('loads exceljs, still not the AWS SDK, for a local workbook', async () => {
    const run = await exportAs('csv,xlsx');
    expect(run.code).toBe(0);
    const packages = packagesOf(run.stderr);
    expect(packages).toContain('exceljs');
    expect(packages.filter((p) => p.startsWith('@aws-sdk/'))).toEqual([]);
  });
});

describe('shift-export run refuses bad input with one line and writes nothing', () => {
  const cases: {
    name: string;
    args: string[];
    env?: Record<string, string>;
    code: number;
    pattern: RegExp;
  }[] = [
    {
      name: 'an impossible date',
      args: ['--from', '2024-02-30', '--to', '2024-03-01'],
      code: 2,
      pattern: /--from "2024-02-30" is not a date/,
    },
    {
      name: 'from after to',
      args: ['--from', '2024-03-05', '--to', '2024-03-01'],
      code: 2,
      pattern: /--from 2024-03-05 is after --to 2024-03-01/,
    },
    {
      name: 'a period over the maximum',
      args: ['--from', '2024-01-01', '--to', '2024-03-01'],
      code: 2,
      pattern: /more than the maximum of 31/,
    },
    {
      name: 'an unknown format',
      args: ['--from', '2024-03-01', '--to', '2024-03-01', '--format', 'pdf'],
      code: 2,
      pattern: /unknown format "pdf"/,
    },
    {
      name: 'an unknown format, before the upstream settings are looked at',
      args: ['--from', '2024-03-01', '--to', '2024-03-01', '--format', 'pdf'],
      env: { WFM_BASE_URL: '' },
      code: 2,
      pattern: /^shift-export run: REQUEST_INVALID: --format has an unknown format "pdf"/,
    },
    {
      name: 'an unknown flag',
      args: ['--from', '2024-03-01', '--to', '2024-03-01', '--frmo', 'x'],
      code: 2,
      pattern: /--frmo/,
    },
    { name: 'a missing --to', args: ['--from', '2024-03-01'], code: 2, pattern: /--to is required/ },
    {
      name: 'a missing token',
      args: ['--from', '2024-03-01', '--to', '2024-03-01'],
      env: { WFM_TOKEN: '' },
      code: 2,
      pattern: /WFM_TOKEN is not set/,
    },
    {
      name: 'a malformed base URL',
      args: ['--from', '2024-03-01', '--to', '2024-03-01'],
      env: { WFM_BASE_URL: 'ftp:/x' },
      code: 2,
      pattern: /WFM_BASE_URL is invalid/,
    },
    {
      name: 'a wrong token (401)',
      args: ['--from', '2024-03-01', '--to', '2024-03-01'],
      env: { WFM_TOKEN: 'wrong-token' },
      code: 1,
      pattern: /WFM_AUTH/,
    },
    {
      name: 'an unreachable upstream',
      args: ['--from', '2024-03-01', '--to', '2024-03-01'],
      env: { WFM_BASE_URL: 'http://127.0.0.1:9', WFM_RETRY_ATTEMPTS: '1' },
      code: 1,
      pattern: /WFM_NETWORK|WFM_TIMEOUT/,
    },
  ];

  for (const c of cases) {
    it(`stops on ${c.name}`, async () => {
      const dest = tempFolderForTest('run-bad-');
      const run = await runCli(['run', ...c.args, '--dest', dest], { ...baseEnv, ...c.env });
      expect(run.code).toBe(c.code);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(c.pattern);
      expect(run.stderr).not.toContain('wrong-token');
      expect(readdirSync(dest)).toEqual([]);
    });
  }
});

describe('shift-export run against an upstream that answers something else than the report', () => {
  it('fails with one line that says what arrived, the token redacted', async () => {
    const proxy = await startTestSandbox({
      rows: 100,
      faults: { wfm_timers: { wrongBody: 'html', wrongBodyNext: 100 } },
    });
    try {
      const dest = tempFolderForTest('run-html-');
      const run = await runCli(['run', '--from', '2024-03-30', '--to', '2024-03-30', '--dest', dest], {
        ...baseEnv,
        WFM_BASE_URL: proxy.url,
        WFM_RETRY_ATTEMPTS: '1',
      });
      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^shift-export run: WFM_BODY_INVALID: .*received Content-Type text\/html; charset=utf-8, Content-Encoding gzip, body starting "<!DOCTYPE html> <!-- proxy debug: Authorization: Bearer \*\*\* -->/,
      );
      expect(run.stderr).not.toContain(SANDBOX_ADMIN_TOKEN);
      expect(readdirSync(dest)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
