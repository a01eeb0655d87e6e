// ConfiguredExport against the sandbox over HTTP into a temporary folder: the one assembly that `run`,
// `demo` and the worker share writes the files with row hashes, counts the changes on the next
// export of the period (whatever its formats, delimiter or BOM), and reports the upstream traffic.

import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/render/manifest.js';
import type { ExportFormat } from '../../src/domain/export-format.js';
import type { ExportResult } from '../../src/export/run-export.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { runConfiguredExport } from '../support/run-configured-export.js';

const DAY = '2024-03-30';

let sandbox: RunningSandbox;
let dest: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  dest = mkdtempSync(join(tmpdir(), 'configured-export-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

async function exportOnce(
  formats: readonly ExportFormat[] = ['csv'],
  csv: Record<string, string> = {},
): Promise<{ result: ExportResult; wireBytes: number }> {
  const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN, ...csv };
  return runConfiguredExport(env, { from: DAY, to: DAY }, formats);
}

describe('ConfiguredExport', () => {
  it('publishes the files with row hashes, then counts the changes on the next export', async () => {
    const first = await exportOnce();
    expect(first.result.location).toBe(join(dest, `${DAY}_${DAY}`));
    expect(first.result.manifest.counts.exported).toBeGreaterThan(10);
    expect(first.wireBytes).toBeGreaterThan(0);
    expect(first.result.manifest.files.map((f) => f.name)).toContain('row-hashes.bin');
    expect(first.result.manifest.changes).toBeUndefined();
    // What runExport returns is what was published.
    const onDisk = await readFile(join(first.result.location, 'manifest.json'), 'utf8');
    expect(parseManifest(onDisk)).toEqual(first.result.manifest);

    const second = await exportOnce();
    expect(second.result.manifest.previous?.export_id).toBe(first.result.manifest.export_id);
    expect(second.result.manifest.changes).toMatchObject({ added: 0, removed: 0, changed: 0 });
  });

  it('records and counts changes without shifts.csv, and whatever the CSV delimiter and BOM', async () => {
    const csv = await exportOnce(['csv'], { CSV_DELIMITER: ',', CSV_BOM: 'true' });
    const xlsxOnly = await exportOnce(['xlsx']);
    expect(xlsxOnly.result.manifest.files.map((f) => f.name)).toEqual(['shifts.xlsx', 'row-hashes.bin']);
    const rows = csv.result.manifest.counts.exported;
    expect(xlsxOnly.result.manifest.files.find((f) => f.name === 'row-hashes.bin')).toMatchObject({
      rows,
      bytes: 8 + 16 * rows,
    });
    expect(xlsxOnly.result.manifest.changes).toEqual({
      previous_export_id: csv.result.manifest.export_id,
      added: 0,
      removed: 0,
      changed: 0,
    });
    const semicolons = await exportOnce(['csv'], { CSV_DELIMITER: ';', CSV_BOM: 'false' });
    expect(semicolons.result.manifest.changes).toMatchObject({ added: 0, removed: 0, changed: 0 });
  });
});
