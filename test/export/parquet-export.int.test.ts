// `--format parquet` end to end but in process: the sandbox over HTTP, ConfiguredExport into a temporary
// folder, then shifts.parquet read back with DuckDB against shifts.csv of the same export — every
// column typed as its kind promises, every cell and the row count equal — and listed in the manifest
// with its rows, bytes and sha256.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { TOOL_NAME, TOOL_VERSION } from '../../src/version.js';
import { csvRecordsUnguarded, differences, readParquet } from '../support/parquet-reader.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { runConfiguredExport } from '../support/run-configured-export.js';

const PERIOD = { from: '2024-03-01', to: '2024-03-31' };

let sandbox: RunningSandbox;
let dest: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  dest = mkdtempSync(join(tmpdir(), 'parquet-export-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

describe('an export with --format csv,parquet', () => {
  it('writes shifts.parquet that DuckDB reads back equal to shifts.csv, listed in the manifest', async () => {
    const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN };
    const { result } = await runConfiguredExport(env, PERIOD, ['csv', 'parquet']);

    const exported = result.manifest.counts.exported;
    expect(exported).toBeGreaterThan(1000);
    const path = join(result.location, 'shifts.parquet');
    const bytes = await readFile(path);
    expect(result.manifest.files.find((f) => f.name === 'shifts.parquet')).toMatchObject({
      rows: exported,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      content_type: 'application/vnd.apache.parquet',
    });

    const csv = csvRecordsUnguarded(
      await readFile(join(result.location, 'shifts.csv'), 'utf8'),
      SHIFT_COLUMNS,
    );
    expect(csv).toHaveLength(exported);
    const back = await readParquet(path, SHIFT_COLUMNS);
    expect(back.rows).toHaveLength(exported);
    expect(differences(back, csv, SHIFT_COLUMNS)).toEqual([]);
    expect(back.createdBy).toBe(`${TOOL_NAME} ${TOOL_VERSION}`);
  });
});
