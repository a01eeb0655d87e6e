// The use case: export one period. Reads like a table of contents — division metadata, the report
// streamed through the pipeline into the renderers and the change recorder, the summaries, the
// changes since the previous export (before the workbook ends: its Overview shows them), the
// manifest last — and returns the published manifest. The CLI (`shift-export run`, `demo`) and
// the queue worker both call it.

import type { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import type { Division } from 'wfm-contract/division';
import type {
  Destination,
  ExportFileSink,
  ExportPublication,
  StoredFile,
} from '../destinations/destination.js';
import type { ExportFormat } from '../config.js';
import { CONTENT_TYPES } from '../destinations/content-headers.js';
import { type Period, upstreamWindow } from '../domain/period.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import { REJECTED_COLUMNS } from '../domain/rejected-row.js';
import type { ExportSummaries } from '../domain/summary.js';
import { AbortedError } from '../errors.js';
import { ChangeRecorder } from '../changes/change-recorder.js';
import { TempFolder } from '../temp-file.js';
import type { ReadProgress } from '../wfm/report-reader.js';
import type { Logger } from '../logger.js';
import { divisionDirectory } from '../pipeline/enrich.js';
import { ShiftPipeline } from '../pipeline/shift-pipeline.js';
import type { DecimalSeparator } from '../render/cell-text.js';
import {
  csvContentEncoding,
  csvFileName,
  csvOutput,
  type CsvCompression,
} from '../render/csv/csv-compression.js';
import type { CsvDelimiter } from '../render/csv/csv-line-encoder.js';
import { CsvTableWriter, type CsvTableOptions } from '../render/csv/csv-table-writer.js';
import type { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import type { ParquetTableWriter } from '../render/parquet/parquet-table-writer.js';
import { renderManifest, manifestStatistics, type Manifest, type ManifestFile } from '../render/manifest.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { newExportId } from './export-id.js';
import { RenderPool } from './render-pool.js';
import { ShiftRowsOutput } from './shift-rows-output.js';
import type { ExportProgress, ProgressListener } from './progress.js';
import { SUMMARY_TABLES } from './summary-tables.js';
import type { ShiftSource } from './shift-source.js';

export interface ExportRequest {
  readonly period: Period;
  readonly formats: readonly ExportFormat[];
}

export interface ExportSettings {
  readonly csvDelimiter: CsvDelimiter;
  readonly csvDecimal: DecimalSeparator;
  readonly csvCompression: CsvCompression;
  readonly csvBom: boolean;
  readonly matchRateThreshold: number;
  /** The upstream's base URL, recorded in the manifest (never a token). */
  readonly sourceBaseUrl: string;
  /** EXPORT_MEMORY_MB in bytes: what user and shop statistics may hold before they spill; none: no limit. */
  readonly memoryBudgetBytes?: number;
  /** Where statistics spill; default os.tmpdir(). */
  readonly tempDir?: string;
  /** EXPORT_THREADS: threads that render the shifts, this one included; default 1 (this one only). */
  readonly threads?: number;
}

export interface ExportDependencies {
  readonly source: ShiftSource;
  readonly destination: Destination;
  readonly settings: ExportSettings;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
  readonly onProgress?: ProgressListener;
  /** Given by the queue so that retries of one job are told apart; generated otherwise. */
  readonly exportId?: string;
}

export interface ExportResult {
  readonly manifest: Manifest;
  /** Where the export is now visible (folder or s3:// URL). */
  readonly location: string;
  readonly manifestLocation: string;
  readonly durationMs: number;
  /** The report read: requests, retries, bytes on the wire and decoded (undefined: never started). */
  readonly upstream: ReadProgress | undefined;
}

interface OpenFile {
  readonly sink: ExportFileSink;
  readonly contentType: string;
  readonly contentEncoding: 'gzip' | undefined;
  rows: number;
}

/** Opens a file of the export; a CSV file with the export's compression. */
type OpenFileOf = (name: string, contentType: string, contentEncoding?: 'gzip') => OpenFile;

/** A CSV file of the export: where it is stored, and the stream its text goes into. */
interface OpenCsv {
  readonly file: OpenFile;
  readonly output: Writable;
}

export async function runExport(request: ExportRequest, deps: ExportDependencies): Promise<ExportResult> {
  const { period, formats } = request;
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const exportId = deps.exportId ?? newExportId(startedAt);
  const log = deps.logger.child({ exportId, period: `${period.from}..${period.to}` });
  const signal = deps.signal;
  let progress: ExportProgress = { phase: 'starting', rows: 0, exported: 0, rejected: 0 };
  const report = (next: Partial<ExportProgress>): void => {
    progress = { ...progress, ...next };
    deps.onProgress?.(progress);
  };

  throwIfAborted(signal);
  report({ phase: 'divisions' });
  const divisions: Division[] = await deps.source.listDivisions({ fields: ['dirs'], signal });
  log.info(
    { divisions: divisions.length, formats, destination: deps.destination.description },
    'export started',
  );

  const publication = await deps.destination.begin(period, exportId, signal);
  const changes = new ChangeRecorder({ logger: log });
  const files = new Map<string, OpenFile>();
  const open: OpenFileOf = (name, contentType, contentEncoding) => {
    const sink = publication.openFile(name, contentType, contentEncoding);
    const file: OpenFile = { sink, contentType, contentEncoding, rows: 0 };
    files.set(name, file);
    return file;
  };
  const compression = deps.settings.csvCompression;
  const openCsv = (name: string): OpenCsv => {
    const file = open(csvFileName(name, compression), CONTENT_TYPES.csv, csvContentEncoding(compression));
    return { file, output: csvOutput(file.sink.stream, compression) };
  };
  let workbook: ShiftsWorkbookWriter | undefined;
  let pool: RenderPool | undefined;
  // Spilled statistics: read back while the summaries are written, removed however the export ends.
  const temp = new TempFolder(deps.settings.tempDir ?? tmpdir());
  try {
    const csvOptions: CsvTableOptions = {
      delimiter: deps.settings.csvDelimiter,
      decimal: deps.settings.csvDecimal,
      bom: deps.settings.csvBom,
    };
    const wantCsv = formats.includes('csv');
    const shiftsCsvFile = wantCsv ? openCsv('shifts.csv') : undefined;
    const rejectedCsvFile = wantCsv ? openCsv('rejected.csv') : undefined;
    const shiftsCsv = shiftsCsvFile && new CsvTableWriter(SHIFT_COLUMNS, shiftsCsvFile.output, csvOptions);
    const rejectedCsv =
      rejectedCsvFile && new CsvTableWriter(REJECTED_COLUMNS, rejectedCsvFile.output, csvOptions);
    if (formats.includes('xlsx')) {
      // Loaded only when wanted: exceljs costs a CSV-only export memory and start-up time.
      const { ShiftsWorkbookWriter } = await import('../render/xlsx/shifts-workbook-writer.js');
      const xlsxFile = open('shifts.xlsx', CONTENT_TYPES.xlsx);
      workbook = new ShiftsWorkbookWriter(xlsxFile.sink.stream, {
        createdAt: startedAt,
        creator: `${TOOL_NAME} ${TOOL_VERSION}`,
        matchRateThreshold: deps.settings.matchRateThreshold,
      });
    }

    let shiftsParquet: ParquetTableWriter<ShiftRecord> | undefined;
    if (formats.includes('parquet')) {
      // Loaded only when wanted, as exceljs is.
      const { ParquetTableWriter } = await import('../render/parquet/parquet-table-writer.js');
      const parquetFile = open('shifts.parquet', CONTENT_TYPES.parquet);
      shiftsParquet = new ParquetTableWriter(SHIFT_COLUMNS, parquetFile.sink.stream, {
        createdBy: `${TOOL_NAME} ${TOOL_VERSION}`,
      });
    }

    // Stages run synchronously per batch; writing (and waiting for slow sinks) happens between batches.
    const budgetBytes = deps.settings.memoryBudgetBytes;
    const directory = divisionDirectory(divisions);
    const pipeline = new ShiftPipeline({
      period,
      divisions: directory,
      ...(budgetBytes === undefined ? {} : { groupMemory: { budgetBytes, temp } }),
    });
    // Render threads pay for the workbook only: each parses its batches again (~5 CPU-µs a row),
    // about what rendering a CSV record costs, so a CSV-only export was slower with them (bench/README.md).
    const threads = deps.settings.threads ?? 1;
    if (threads > 1 && workbook !== undefined)
      pool = new RenderPool(threads - 1, { divisions: directory, csv: shiftsCsv && csvOptions });
    const shiftRows = new ShiftRowsOutput({ csv: shiftsCsv, workbook, pool });

    report({ phase: 'fetching' });
    let upstream: ReadProgress | undefined;
    const read = { window: upstreamWindow(period), signal, onProgress: (p: ReadProgress) => (upstream = p) };
    for await (const batch of deps.source.readShifts(read)) {
      // Taken before the pipeline releases the batch's texts: a render thread parses it again.
      const parsed = pool === undefined ? undefined : batch.texts?.parsedBatch?.();
      const { shifts, rowIndexes, rejected } = pipeline.processBatch(batch);
      for (const record of shifts) {
        changes.record(record);
        const c = shiftsParquet?.write(record);
        if (c) await c;
      }
      await shiftRows.add(shifts, rowIndexes, parsed);
      for (const row of rejected) {
        const a = rejectedCsv?.write(row);
        if (a) await a;
        const b = workbook?.addRejected(row);
        if (b) await b;
      }
      const counts = pipeline.counts;
      report({ rows: counts.fetched, exported: counts.exported, rejected: counts.rejected });
      throwIfAborted(signal);
    }

    await shiftRows.flush();
    if (pool !== undefined)
      log.debug(
        {
          threadBatches: shiftRows.threadBatches,
          localBatches: shiftRows.localBatches,
          styleRetries: shiftRows.styleRetries,
        },
        'shifts rendered',
      );
    report({ phase: 'summaries' });
    const counts = pipeline.counts;
    const summaries = pipeline.finish();
    if (shiftsCsvFile && shiftsCsv) shiftsCsvFile.file.rows = (await shiftsCsv.end()).rows;
    if (rejectedCsvFile && rejectedCsv) rejectedCsvFile.file.rows = (await rejectedCsv.end()).rows;
    if (wantCsv) await writeSummaryCsvs(summaries, openCsv, csvOptions);
    const parquetFile = files.get('shifts.parquet');
    if (parquetFile && shiftsParquet) parquetFile.rows = (await shiftsParquet.end()).rows;
    // Before the workbook's last sheets: its Overview shows the rows changed since the previous export.
    const { file: rowHashes, ...changed } = await changes.conclude(publication, deps.destination, period);
    const xlsxFile = files.get('shifts.xlsx');
    if (workbook && xlsxFile) {
      await workbook.finish(summaries, {
        period,
        generatedAt: startedAt,
        sourceBaseUrl: deps.settings.sourceBaseUrl,
        counts,
        exportId,
        toolVersion: TOOL_VERSION,
        changes: changed,
      });
      xlsxFile.rows = counts.exported;
    }

    report({ phase: 'publishing' });
    const stored = await Promise.all(
      [...files.values()].map(async (f) => ({ file: f, stored: await f.sink.done() })),
    );
    const manifest: Manifest = {
      export_id: exportId,
      period: { from: period.from, to: period.to },
      generated_at: startedAt.toISOString(),
      tool: { name: TOOL_NAME, version: TOOL_VERSION },
      source: { base_url: deps.settings.sourceBaseUrl },
      counts,
      statistics: manifestStatistics(summaries.overall),
      files: [
        ...stored.map(({ file, stored: s }) => manifestFile(s, file)),
        ...(rowHashes === undefined ? [] : [rowHashes]),
      ],
      ...changed,
    };
    throwIfAborted(signal);
    const published = await publication.publish(renderManifest(manifest));
    report({ phase: 'done' });
    const durationMs = now().getTime() - startedAt.getTime();
    log.info({ counts, upstream, location: published.location, durationMs }, 'export published');
    return {
      manifest,
      location: published.location,
      manifestLocation: published.manifestLocation,
      durationMs,
      upstream,
    };
  } catch (error) {
    await abortAll(publication, files, workbook, error, log);
    throw signal?.aborted ? new AbortedError('the export was aborted', error) : error;
  } finally {
    await pool?.close();
    await changes.dispose();
    temp.dispose();
  }
}

async function writeSummaryCsvs(
  summaries: ExportSummaries,
  openCsv: (name: string) => OpenCsv,
  csvOptions: CsvTableOptions,
): Promise<void> {
  for (const table of SUMMARY_TABLES) {
    const { file, output } = openCsv(table.fileName);
    file.rows = await table.use(summaries, async (columns, rows) => {
      const writer = new CsvTableWriter(columns, output, csvOptions);
      for (const row of rows) {
        const wait = writer.write(row);
        if (wait) await wait;
      }
      return (await writer.end()).rows;
    });
  }
}

function manifestFile(stored: StoredFile, file: OpenFile): ManifestFile {
  return {
    name: stored.name,
    path: stored.path,
    bytes: stored.bytes,
    sha256: stored.sha256,
    rows: file.rows,
    content_type: file.contentType,
    ...(file.contentEncoding === undefined ? {} : { content_encoding: file.contentEncoding }),
  };
}

async function abortAll(
  publication: ExportPublication,
  files: Map<string, OpenFile>,
  workbook: ShiftsWorkbookWriter | undefined,
  error: unknown,
  log: Logger,
): Promise<void> {
  await workbook?.abort(error).catch(() => undefined);
  for (const file of files.values()) {
    if (!file.sink.stream.destroyed)
      file.sink.stream.destroy(error instanceof Error ? error : new Error(String(error)));
    // done() rejects now; its error is the one we already have.
    file.sink.done().catch(() => undefined);
  }
  try {
    await publication.abort(error);
  } catch (abortError) {
    log.error({ err: abortError }, 'cleaning up the failed export failed too');
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError('the export was aborted', signal.reason);
}
