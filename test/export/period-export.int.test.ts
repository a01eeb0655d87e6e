// PeriodExport against the sandbox over HTTP into a temporary folder: the one assembly that `run`,
// `demo` and the worker share writes the files with row hashes, counts the changes on the next
// export of the period, and reports the upstream traffic.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExportConfig, loadS3Config, loadWfmConfig, requireUpstream } from '../../src/config.js';
import { PeriodExport } from '../../src/export/period-export.js';
import { silentLogger } from '../../src/logger.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';

const DAY = '2024-03-30';

let sandbox: RunningSandbox;
let dest: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  dest = mkdtempSync(join(tmpdir(), 'period-export-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

async function exportOnce(): Promise<Awaited<ReturnType<PeriodExport['run']>> & { wireBytes: number }> {
  const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN };
  const periodExport = await PeriodExport.open({
    dest,
    exportConfig: loadExportConfig(env),
    wfm: requireUpstream(loadWfmConfig(env)),
    s3Config: () => loadS3Config(env),
    logger: silentLogger,
  });
  try {
    const outcome = await periodExport.run({ period: { from: DAY, to: DAY }, formats: ['csv'] });
    return { ...outcome, wireBytes: periodExport.upstreamTraffic.wireBytes };
  } finally {
    await periodExport.close();
  }
}

describe('PeriodExport', () => {
  it('publishes the files with row hashes, then counts the changes on the next export', async () => {
    const first = await exportOnce();
    expect(first.result.location).toBe(join(dest, `${DAY}_${DAY}`));
    expect(first.result.manifest.counts.exported).toBeGreaterThan(10);
    expect(first.wireBytes).toBeGreaterThan(0);
    expect(first.published?.files.map((f) => f.name)).toContain('row-hashes.bin');
    expect(first.published?.changes).toBeUndefined();

    const second = await exportOnce();
    expect(second.published?.changes).toMatchObject({ added: 0, removed: 0, changed: 0 });
  });
});
