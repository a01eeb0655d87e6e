// Everything `run` and `demo` share: read the export settings and formats from configuration, run
// the PeriodExport (src/export/period-export.ts) with a live progress line, print the summary
// (where the files are, the headline numbers, the rows changed since the previous export).
// Configuration is parsed here, at the edge, once.

import { loadExportConfig, loadS3Config, type ConnectedWfmConfig, type ExportFormat } from '../config.js';
import type { Period } from '../domain/period.js';
import { PeriodExport } from '../export/period-export.js';
import type { ExportResult } from '../export/run-export.js';
import { exportJobResult } from '../queue/export-job-result.js';
import type { Logger } from '../logger.js';
import type { CliIo } from './command.js';
import { formatExportResult } from './job-text.js';
import { createProgressLine } from './progress-line.js';

export interface ExportSessionOptions {
  readonly period: Period;
  readonly wfm: ConnectedWfmConfig;
  /** --dest, else EXPORT_DEST. */
  readonly dest: string | undefined;
  /** --format as checked by the command (requestedFormats), else EXPORT_FORMATS. */
  readonly formats: readonly ExportFormat[] | undefined;
  /** The command's logger (commandLogger: `run` and `demo` keep quiet in different cases). */
  readonly logger: Logger;
}

export async function runExportSession(
  options: ExportSessionOptions,
  io: CliIo,
  signal?: AbortSignal,
): Promise<ExportResult> {
  const exportConfig = loadExportConfig(io.env);
  const formats = options.formats ?? exportConfig.formats;
  const periodExport = await PeriodExport.open({
    dest: options.dest ?? exportConfig.dest,
    exportConfig,
    wfm: options.wfm,
    s3Config: () => loadS3Config(io.env),
    logger: options.logger,
  });
  const progress = createProgressLine(io.stderr);
  try {
    const result = await periodExport.run(
      { period: options.period, formats },
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
    await periodExport.close();
  }
}

/** An AbortSignal that fires on the first SIGINT/SIGTERM, so uploads are aborted cleanly. */
export function signalOnInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => controller.abort(new Error(`received ${name}`));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
