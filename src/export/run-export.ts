// The use case: export one period. Reads like a table of contents — division metadata, the report
// streamed through the pipeline into the renderers, the summaries, the manifest last — and returns
// the published manifest. The CLI (`shift-export run`, `demo`) and the queue worker both call it.

import type { Division } from '../wfm/schemas.js';
import type {
  Destination,
  ExportFileSink,
  ExportPublication,
  StoredFile,
} from '../destinations/destination.js';
import type { ExportFormat } from '../config.js';
import { type Period, upstreamWindow } from '../domain/period.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import { REJECTED_COLUMNS, type RejectedRow } from '../domain/rejected-row.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import { AbortedError } from '../errors.js';
import type { ReadProgress } from '../wfm/report-reader.js';
import type { Logger } from '../logger.js';
import { divisionDirectory } from '../pipeline/enrich.js';
import { ShiftPipeline } from '../pipeline/shift-pipeline.js';
import type { CsvDelimiter } from '../render/csv/csv-line-encoder.js';
import { CsvTableWriter, type CsvTableOptions } from '../render/csv/csv-table-writer.js';
import type { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import { renderManifest, manifestStatistics, type Manifest, type ManifestFile } from '../render/manifest.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { newExportId } from './export-id.js';
import type { ExportProgress, ProgressListener } from './progress.js';
import { SUMMARY_TABLES } from './summary-tables.js';
import type { ShiftSource } from './shift-source.js';

export interface ExportRequest {
  readonly period: Period;
  readonly formats: readonly ExportFormat[];
}

export interface ExportSettings {
  readonly csvDelimiter: CsvDelimiter;
  readonly csvBom: boolean;
  readonly matchRateThreshold: number;
  /** The upstream's base URL, recorded in the manifest (never a token). */
  readonly sourceBaseUrl: string;
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

const CSV_TYPE = 'text/csv; charset=utf-8';
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

interface OpenFile {
  readonly sink: ExportFileSink;
  readonly contentType: string;
  rows: number;
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
  const files = new Map<string, OpenFile>();
  const open = (name: string, contentType: string): OpenFile => {
    const file: OpenFile = { sink: publication.openFile(name, contentType), contentType, rows: 0 };
    files.set(name, file);
    return file;
  };
  let workbook: ShiftsWorkbookWriter | undefined;
  try {
    const csvOptions = { delimiter: deps.settings.csvDelimiter, bom: deps.settings.csvBom };
    const wantCsv = formats.includes('csv');
    const shiftsCsvFile = wantCsv ? open('shifts.csv', CSV_TYPE) : undefined;
    const rejectedCsvFile = wantCsv ? open('rejected.csv', CSV_TYPE) : undefined;
    const shiftsCsv =
      shiftsCsvFile && new CsvTableWriter(SHIFT_COLUMNS, shiftsCsvFile.sink.stream, csvOptions);
    const rejectedCsv =
      rejectedCsvFile && new CsvTableWriter(REJECTED_COLUMNS, rejectedCsvFile.sink.stream, csvOptions);
    if (formats.includes('xlsx')) {
      // Loaded only when wanted: exceljs costs a CSV-only export memory and start-up time.
      const { ShiftsWorkbookWriter } = await import('../render/xlsx/shifts-workbook-writer.js');
      const xlsxFile = open('shifts.xlsx', XLSX_TYPE);
      workbook = new ShiftsWorkbookWriter(xlsxFile.sink.stream, {
        createdAt: startedAt,
        creator: `${TOOL_NAME} ${TOOL_VERSION}`,
        matchRateThreshold: deps.settings.matchRateThreshold,
      });
    }

    // Stages run synchronously per batch; writing (and waiting for slow sinks) happens between batches.
    const pipeline = new ShiftPipeline({ period, divisions: divisionDirectory(divisions) });
    const shifts: ShiftRecord[] = [];
    const rejected: RejectedRow[] = [];
    const collect = {
      shift: (r: ShiftRecord) => void shifts.push(r),
      rejected: (r: RejectedRow) => void rejected.push(r),
    };

    report({ phase: 'fetching' });
    let upstream: ReadProgress | undefined;
    const read = { window: upstreamWindow(period), signal, onProgress: (p: ReadProgress) => (upstream = p) };
    for await (const batch of deps.source.readShifts(read)) {
      pipeline.processBatch(batch, collect);
      for (const record of shifts) {
        const a = shiftsCsv?.write(record);
        if (a) await a;
        const b = workbook?.addShift(record);
        if (b) await b;
      }
      for (const row of rejected) {
        const a = rejectedCsv?.write(row);
        if (a) await a;
        const b = workbook?.addRejected(row);
        if (b) await b;
      }
      shifts.length = 0;
      rejected.length = 0;
      const counts = pipeline.counts;
      report({ rows: counts.fetched, exported: counts.exported, rejected: counts.rejected });
      throwIfAborted(signal);
    }

    report({ phase: 'summaries' });
    const counts = pipeline.counts;
    const summaries = pipeline.finish();
    if (shiftsCsvFile && shiftsCsv) shiftsCsvFile.rows = (await shiftsCsv.end()).rows;
    if (rejectedCsvFile && rejectedCsv) rejectedCsvFile.rows = (await rejectedCsv.end()).rows;
    if (wantCsv) await writeSummaryCsvs(summaries, open, csvOptions);
    const xlsxFile = files.get('shifts.xlsx');
    if (workbook && xlsxFile) {
      await workbook.finish(summaries, {
        period,
        generatedAt: startedAt,
        sourceBaseUrl: deps.settings.sourceBaseUrl,
        counts,
        exportId,
        toolVersion: TOOL_VERSION,
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
      files: stored.map(({ file, stored: s }) => manifestFile(s, file)),
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
  }
}

async function writeSummaryCsvs(
  summaries: ExportSummaries,
  open: (name: string, contentType: string) => OpenFile,
  csvOptions: CsvTableOptions,
): Promise<void> {
  for (const table of SUMMARY_TABLES) {
    const file = open(table.fileName, CSV_TYPE);
    file.rows = await table.use(summaries, async (columns, rows) => {
      const writer = new CsvTableWriter(columns, file.sink.stream, csvOptions);
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
