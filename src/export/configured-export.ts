// The use case wired from configuration, as `shift-export run`, `demo` and the queue worker all
// run it: the destination named by text, a WFM client, and runExport with the settings from
// configuration. What differs per caller stays with the caller: the worker's destination rule, job
// data, progress and metrics; the CLI's progress line and summary.

import type { ConnectedWfmConfig } from '../config/wfm-config.js';
import type { ExportConfig } from '../config/export-config.js';
import type { S3Config } from '../config/s3-config.js';
import type { ParsedDestination } from '../destination-address.js';
import { createDestination, type AnyDestination } from '../destinations/create-destination.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import type { Logger } from '../logger.js';
import { WfmClient } from '../wfm/wfm-client.js';
import type { ProgressListener } from './progress.js';
import { runExport, type ExportScope, type ExportResult } from './run-export.js';

export interface ConfiguredExportOptions {
  /** Where the files go: a folder or an s3:// URL. */
  readonly dest: string;
  /** The roots a local folder must stay inside; the worker gives them, the CLI does not. */
  readonly roots?: readonly ParsedDestination[];
  readonly exportConfig: ExportConfig;
  readonly wfm: ConnectedWfmConfig;
  /** Read only for an s3:// destination. */
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  /** Called on each retried WFM request (after the client has logged it). */
  readonly onUpstreamRetry?: () => void;
  /** The workbook's language when the scope names none; default REPORT_LANG (ExportSettings.language). */
  readonly language?: ReportLanguage;
}

interface RunOptions {
  readonly onProgress?: ProgressListener;
  readonly signal?: AbortSignal | undefined;
}

export class ConfiguredExport {
  readonly #destination: AnyDestination;
  readonly #client: WfmClient;
  readonly #options: ConfiguredExportOptions;

  private constructor(destination: AnyDestination, options: ConfiguredExportOptions) {
    this.#destination = destination;
    this.#options = options;
    const onRetry = options.onUpstreamRetry;
    this.#client = new WfmClient(options.wfm, {
      logger: options.logger,
      ...(onRetry === undefined ? {} : { onRetry }),
    });
  }

  /** Builds the destination and the client; nothing is read or written until run. */
  static async open(options: ConfiguredExportOptions): Promise<ConfiguredExport> {
    const roots = options.roots === undefined ? {} : { roots: options.roots };
    const destination = await createDestination(options.dest, options.s3Config, options.logger, roots);
    return new ConfiguredExport(destination, options);
  }

  /** Checks the destination can be written, then exports. */
  async run(scope: ExportScope, run: RunOptions = {}): Promise<ExportResult> {
    await this.#destination.check();
    const { exportConfig, wfm, logger, language } = this.#options;
    return runExport(scope, {
      source: this.#client,
      destination: this.#destination,
      settings: {
        csvDelimiter: exportConfig.csvDelimiter,
        csvDecimal: exportConfig.csvDecimal,
        csvCompression: exportConfig.csvCompression,
        csvBom: exportConfig.csvBom,
        matchRateThreshold: exportConfig.matchRateThreshold,
        sourceBaseUrl: wfm.baseUrl,
        memoryBudgetBytes: exportConfig.memoryMb * 1024 * 1024,
        threads: exportConfig.threads,
        statisticsThread: exportConfig.statisticsThread,
        // A definition's own lang comes with the scope; otherwise REPORT_LANG.
        language: language ?? exportConfig.reportLang,
      },
      logger,
      ...(run.onProgress === undefined ? {} : { onProgress: run.onProgress }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
  }

  /** Bytes read from the upstream so far, on the wire and decoded. */
  get upstreamTraffic(): { readonly wireBytes: number; readonly decodedBytes: number } {
    return this.#client.traffic;
  }

  /** Releases the destination's S3 client (if it owns one) and the WFM client's connections. */
  async close(): Promise<void> {
    const destination = this.#destination;
    if ('close' in destination && typeof destination.close === 'function') destination.close();
    await this.#client.close();
  }
}
