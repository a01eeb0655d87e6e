// One export through ConfiguredExport, the assembly `run`, `demo` and the worker share, configured as
// `run` would be by the environment `env` (EXPORT_DEST is where it goes).

import { loadExportConfig } from '../../src/config/export-config.js';
import { loadS3Config } from '../../src/config/s3-config.js';
import { loadWfmConfig, requireUpstream } from '../../src/config/wfm-config.js';
import type { ExportFormat } from '../../src/domain/export-format.js';
import type { Period } from '../../src/domain/period.js';
import type { ReportLanguage } from '../../src/i18n/report-language.js';
import { ConfiguredExport } from '../../src/export/configured-export.js';
import type { ExportResult, ExportScope } from '../../src/export/run-export.js';
import { silentLogger } from '../../src/logger.js';

export interface ConfiguredExportRun {
  readonly result: ExportResult;
  /** Bytes of the report on the wire. */
  readonly wireBytes: number;
}

export async function runConfiguredExport(
  env: Record<string, string>,
  period: Period,
  formats: readonly ExportFormat[],
  /** The workbook's language; none: the default (REPORT_LANG of `env`). */
  language?: ReportLanguage,
  /** The rest of the scope: filter, split, a definition's lang and readers. */
  scope: Omit<ExportScope, 'period' | 'formats'> = {},
): Promise<ConfiguredExportRun> {
  const dest = env['EXPORT_DEST'];
  if (dest === undefined) throw new Error('runConfiguredExport needs EXPORT_DEST');
  const configuredExport = await ConfiguredExport.open({
    dest,
    exportConfig: loadExportConfig(env),
    wfm: requireUpstream(loadWfmConfig(env)),
    s3Config: () => loadS3Config(env),
    logger: silentLogger,
    ...(language === undefined ? {} : { language }),
  });
  try {
    const result = await configuredExport.run({ period, formats, ...scope });
    return { result, wireBytes: configuredExport.upstreamTraffic.wireBytes };
  } finally {
    await configuredExport.close();
  }
}
