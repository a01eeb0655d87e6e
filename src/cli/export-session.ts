// Everything `run` and `demo` share: build the export's dependencies from configuration, draw
// progress, run it, print the summary. Configuration is parsed here, at the edge, once.

import {
  loadExportConfig,
  loadS3Config,
  parseFormats,
  type ConnectedWfmConfig,
  type ExportFormat,
} from '../config.js';
import { createDestination } from '../destinations/create-destination.js';
import type { Period } from '../domain/period.js';
import { ChangeTrackingDestination } from '../export/row-changes/change-tracking-destination.js';
import { runExport, type ExportResult } from '../export/run-export.js';
import { WfmClient } from '../wfm/wfm-client.js';
import type { CliIo } from './command.js';
import { commandLogger } from './command-logger.js';
import { formatExportSummary } from './export-summary.js';
import { createProgressLine } from './progress-line.js';

export interface ExportSessionOptions {
  readonly period: Period;
  readonly wfm: ConnectedWfmConfig;
  /** --dest, else EXPORT_DEST. */
  readonly dest: string | undefined;
  /** --format, else EXPORT_FORMATS. */
  readonly format: string | undefined;
}

export async function runExportSession(
  options: ExportSessionOptions,
  io: CliIo,
  signal?: AbortSignal,
): Promise<ExportResult> {
  const exportConfig = loadExportConfig(io.env);
  const formats: readonly ExportFormat[] =
    options.format === undefined ? exportConfig.formats : parseFormats(options.format, '--format');
  const logger = commandLogger(io, 'export');
  // Like the worker's: row hashes go beside the export, so the next export of this period can
  // count the rows that changed.
  const destination = new ChangeTrackingDestination(
    await createDestination(options.dest ?? exportConfig.dest, () => loadS3Config(io.env), logger),
    {
      csvDelimiter: exportConfig.csvDelimiter,
      logger,
    },
  );
  await destination.check();
  const client = new WfmClient(options.wfm, { logger });
  const progress = createProgressLine(io.stderr);
  try {
    const result = await runExport(
      { period: options.period, formats },
      {
        source: client,
        destination,
        settings: {
          csvDelimiter: exportConfig.csvDelimiter,
          csvBom: exportConfig.csvBom,
          matchRateThreshold: exportConfig.matchRateThreshold,
          sourceBaseUrl: options.wfm.baseUrl,
        },
        logger,
        onProgress: (p) => progress.update(p),
        ...(signal === undefined ? {} : { signal }),
      },
    );
    progress.done();
    io.stdout.write(
      `${formatExportSummary(result, destination.publishedManifest(result.manifest.export_id))}\n`,
    );
    return result;
  } catch (error) {
    progress.done();
    throw error;
  } finally {
    await client.close();
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
