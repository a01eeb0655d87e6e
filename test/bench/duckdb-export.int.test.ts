// The bench's peer does the export's work on the same bytes: DuckDB, reading the report file the
// bench downloads, writes the rows of the period with the same business dates, local times and
// offsets as shift-export's shifts.csv. Needs dist/ (the export runs as the CLI).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdbCsvExport } from '../../bench/duckdb-export.js';
import { downloadReport } from '../../bench/report-file.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox, TEST_SANDBOX_ROWS } from '../support/sandbox.js';

const PERIOD = { from: '2024-03-20', to: '2024-03-31' };
const COMPARED = [
  'shift_id',
  'business_date',
  'user_id',
  'start_local',
  'start_utc_offset',
  'finish_local',
  'finish_utc_offset',
  'start_utc',
  'finish_utc',
];

let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'duckdb-export-test-'));
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function columns(file: string): string[][] {
  const [header, ...rows] = parse(readFileSync(file), { bom: true }) as string[][];
  const at = COMPARED.map((name) => header?.indexOf(name) ?? -1);
  expect(at).not.toContain(-1);
  return rows.map((row) => at.map((i) => row[i] ?? ''));
}

describe('the bench’s DuckDB line', () => {
  it('reads the downloaded report and writes the period’s rows with the export’s local times', async () => {
    const report = await downloadReport(sandbox.url, SANDBOX_ADMIN_TOKEN, PERIOD, join(dir, 'report.json'));
    expect(report.rows).toBeGreaterThan(0);
    expect(report.rows).toBeLessThanOrEqual(TEST_SANDBOX_ROWS);
    const written = await duckdbCsvExport({
      reportFile: report.path,
      csvFile: join(dir, 'duckdb.csv'),
      period: PERIOD,
      threads: 2,
    });

    const run = await runCli(
      ['run', '--from', PERIOD.from, '--to', PERIOD.to, '--dest', join(dir, 'out'), '--format', 'csv'],
      cliEnv({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_ADMIN_TOKEN }),
    );
    expect(run.code, run.stderr).toBe(0);
    const exported = columns(join(dir, 'out', `${PERIOD.from}_${PERIOD.to}`, 'shifts.csv'));
    const peer = columns(join(dir, 'duckdb.csv'));
    expect(written).toBe(exported.length);
    expect(peer).toEqual(exported);
  });
});
