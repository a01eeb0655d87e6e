// The command line's runner of one export, which `run` and `demo` share: read the export settings
// and formats from configuration, run the ConfiguredExport (src/export/configured-export.ts) with a
// live progress line, print the summary (where the files are, the headline numbers, the rows
// changed since the previous export). Configuration is parsed here, at the edge, once.

import { loadExportConfig } from '../config/export-config.js';
import { loadS3Config } from '../config/s3-config.js';
import type { ConnectedWfmConfig } from '../config/wfm-config.js';
import type { ExportFormat } from '../domain/export-format.js';
import type { Period } from '../domain/period.js';
import type { RowFilter } from '../domain/row-filter.js';
import { ConfiguredExport } from '../export/configured-export.js';
import type { ExportResult } from '../export/run-export.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import { exportJobResult } from '../queue/export-job-result.js';
import type { Logger } from '../logger.js';
import type { CliIo } from './command.js';
import { formatExportResult } from './job-text.js';
import { createProgressLine } from './progress-line.js';

export interface CliExportOptions {
  readonly period: Period;
  readonly wfm: ConnectedWfmConfig;
  /** --dest, else EXPORT_DEST. */
  readonly dest: string | undefined;
  /** --format as checked by the command (requestedFormats), else EXPORT_FORMATS. */
  readonly formats: readonly ExportFormat[] | undefined;
  /** The command's logger (commandLogger: `run` and `demo` keep quiet in different cases). */
  readonly logger: Logger;
  /** An export definition's filter, split, language and readers (`run --export`: exportScopeOf). */
  readonly filter?: RowFilter;
  readonly split?: 'division';
  readonly lang?: ReportLanguage;
  readonly readers?: 'division-managers';
}

export async function runCliExport(
  options: CliExportOptions,
  io: CliIo,
  signal?: AbortSignal,
): Promise<ExportResult> {
  const exportConfig = loadExportConfig(io.env);
  const formats = options.formats ?? exportConfig.formats;
  const configuredExport = await ConfiguredExport.open({
    dest: options.dest ?? exportConfig.dest,
    exportConfig,
    wfm: options.wfm,
    s3Config: () => loadS3Config(io.env),
    logger: options.logger,
  });
  const progress = createProgressLine(io.stderr);
  try {
    const result = await configuredExport.run(
      {
        period: options.period,
        formats,
        ...(options.filter === undefined ? {} : { filter: options.filter }),
        ...(options.split === undefined ? {} : { split: options.split }),
        ...(options.lang === undefined ? {} : { lang: options.lang }),
        ...(options.readers === undefined ? {} : { readers: options.readers }),
      },
      { onProgress: (p) => progress.update(p), signal },
    );
    progress.done();
    // The same summary as `enqueue --wait` and `status` print for a job.
    io.stdout.write(`${formatExportResult(exportJobResult(result))}\n`);
    return result;
  } catch (error) {
    progress.done();
    throw error;
  } finally {
    await configuredExport.close();
  }
}
