// One export through PeriodExport, the assembly `run`, `demo` and the worker share, configured as
// `run` would be by the environment `env` (EXPORT_DEST is where it goes).

import { loadExportConfig } from '../../src/config/export-config.js';
import { loadS3Config } from '../../src/config/s3-config.js';
import { loadWfmConfig, requireUpstream } from '../../src/config/wfm-config.js';
import type { ExportFormat } from '../../src/domain/export-format.js';
import type { Period } from '../../src/domain/period.js';
import { PeriodExport } from '../../src/export/period-export.js';
import type { ExportResult } from '../../src/export/run-export.js';
import { silentLogger } from '../../src/logger.js';

export interface PeriodExportRun {
  readonly result: ExportResult;
  /** Bytes of the report on the wire. */
  readonly wireBytes: number;
}

export async function exportPeriod(
  env: Record<string, string>,
  period: Period,
  formats: readonly ExportFormat[],
): Promise<PeriodExportRun> {
  const dest = env['EXPORT_DEST'];
  if (dest === undefined) throw new Error('exportPeriod needs EXPORT_DEST');
  const periodExport = await PeriodExport.open({
    dest,
    exportConfig: loadExportConfig(env),
    wfm: requireUpstream(loadWfmConfig(env)),
    s3Config: () => loadS3Config(env),
    logger: silentLogger,
  });
  try {
    const result = await periodExport.run({ period, formats });
    return { result, wireBytes: periodExport.upstreamTraffic.wireBytes };
  } finally {
    await periodExport.close();
  }
}
