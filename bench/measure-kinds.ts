// What one measured child process does, per kind of measurement. Each returns the rows it handled
// and, for in-process stage timings, the time spent inside the stage; the child wraps it with wall
// time, CPU time and peak RSS (see measure.ts).

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { loadWfmConfig, requireUpstream } from '../src/config/wfm-config.js';
import { upstreamWindow, type Period } from '../src/domain/period.js';
import type { ShiftRecord } from '../src/domain/shift-record.js';
import { silentLogger } from '../src/logger.js';
import { divisionDirectory } from '../src/pipeline/enrich.js';
import { ShiftPipeline } from '../src/pipeline/shift-pipeline.js';
import { WfmClient } from '../src/wfm/wfm-client.js';
import { shiftsSheetSizes, withZipFileEntries } from './zip-entries.js';

export const MEASURE_KINDS = [
  'ceiling',
  'ingest',
  'stages',
  'csv',
  'xlsx',
  'csv,xlsx',
  'parquet',
  'csv,parquet',
  'xlsx-render',
  'duckdb',
  'split',
] as const;
export type MeasureKind = (typeof MEASURE_KINDS)[number];

export interface MeasureInput {
  readonly kind: MeasureKind;
  readonly url: string;
  readonly token: string;
  readonly period: Period;
  /** Rows to render for xlsx-render (the others read the whole report). */
  readonly rows: number;
  /** --dest: a local temp folder or an s3:// URL; the S3 variables come with the environment. */
  readonly dest: string;
  /** duckdb: the report's bytes in a local file, its row count, and DuckDB's threads. */
  readonly reportFile?: string;
  readonly reportRows?: number;
  readonly threads?: number;
}

export interface MeasureOutcome {
  readonly rows: number;
  readonly bytes?: number;
  /** Milliseconds inside the measured stage, when the stage is timed in-process. */
  readonly stageMs?: number;
  /** A workbook's Shifts sheet XML per exported shift (bytes), uncompressed and as stored. */
  readonly sheetBytesPerRow?: { readonly xml: number; readonly compressed: number };
}

/**
 * Identity unless WFM_COMPRESSION=true is set for the bench: the sandbox runs on the same two
 * cores, so its gzip would be charged to the client's figures, and the recorded history is
 * identity. The ceiling line decodes what it asked for, so with gzip it includes the gunzip.
 */
const COMPRESSION = process.env['WFM_COMPRESSION'] ?? 'false';

function clientFor(input: MeasureInput): WfmClient {
  const config = requireUpstream(
    loadWfmConfig({ WFM_BASE_URL: input.url, WFM_TOKEN: input.token, WFM_COMPRESSION: COMPRESSION }),
  );
  return new WfmClient(config, { logger: silentLogger });
}

export async function measure(input: MeasureInput): Promise<MeasureOutcome> {
  switch (input.kind) {
    case 'ceiling':
      return ceiling(input);
    case 'ingest':
      return ingest(input);
    case 'stages':
      return stages(input);
    case 'xlsx-render':
      return xlsxRender(input);
    case 'duckdb':
      return duckdb(input);
    case 'split':
      return splitExport(input);
    default:
      return exportEndToEnd(input, input.kind);
  }
}

async function ceiling(input: MeasureInput): Promise<MeasureOutcome> {
  const client = clientFor(input);
  try {
    const { bytes } = await client.drainReport({ window: upstreamWindow(input.period) });
    return { rows: input.rows, bytes };
  } finally {
    await client.close();
  }
}

async function ingest(input: MeasureInput): Promise<MeasureOutcome> {
  const client = clientFor(input);
  let rows = 0;
  try {
    for await (const batch of client.readShifts({ window: upstreamWindow(input.period) }))
      rows += batch.length;
    return { rows };
  } finally {
    await client.close();
  }
}

/** Ingest plus the pipeline, the pipeline's own time measured around each batch. */
async function stages(input: MeasureInput): Promise<MeasureOutcome> {
  const client = clientFor(input);
  try {
    const divisions = await client.listDivisions({ fields: ['dirs'] });
    const pipeline = new ShiftPipeline({ period: input.period, divisions: divisionDirectory(divisions) });
    let stageMs = 0;
    for await (const batch of client.readShifts({ window: upstreamWindow(input.period) })) {
      const t0 = performance.now();
      pipeline.processBatch(batch);
      stageMs += performance.now() - t0;
    }
    const t0 = performance.now();
    pipeline.finish();
    stageMs += performance.now() - t0;
    return { rows: pipeline.counts.fetched, stageMs };
  } finally {
    await client.close();
  }
}

/** The `run` command itself, in this process, into a temp folder (or the given S3 URL). */
async function exportEndToEnd(input: MeasureInput, format: string): Promise<MeasureOutcome> {
  const local = !input.dest.startsWith('s3://');
  const dir = local ? mkdtempSync(join(input.dest || tmpdir(), 'bench-export-')) : input.dest;
  let out = '';
  let err = '';
  const io = {
    stdout: collect((s) => (out += s)),
    stderr: collect((s) => (err += s)),
    env: {
      ...process.env,
      WFM_BASE_URL: input.url,
      WFM_TOKEN: input.token,
      WFM_COMPRESSION: COMPRESSION,
      LOG_LEVEL: 'warn',
    },
  };
  try {
    // Loaded here so that the client-only lines carry none of the CLI's modules in their RSS.
    const [{ main }, { cliCommands }, { workerCommand }] = await Promise.all([
      import('../src/cli/main.js'),
      import('../src/cli/commands.js'),
      import('../jobs/worker-command.js'),
    ]);
    const code = await main(
      ['run', '--from', input.period.from, '--to', input.period.to, '--dest', dir, '--format', format],
      io,
      cliCommands(workerCommand),
    );
    if (code !== 0) throw new Error(`run exited ${code}: ${err || out}`);
    const fetched = /fetched ([\d,]+)/.exec(out)?.[1];
    return {
      rows: fetched === undefined ? input.rows : Number(fetched.replaceAll(',', '')),
      ...(local && format.includes('xlsx') ? { sheetBytesPerRow: sheetBytesPerRow(dir) } : {}),
    };
  } finally {
    if (local) rmSync(dir, { recursive: true, force: true });
  }
}

/** The Shifts sheets' bytes per exported shift of the one export written into `dir`. */
function sheetBytesPerRow(dir: string): { readonly xml: number; readonly compressed: number } {
  const folder = readdirSync(dir).find((name) => existsSync(join(dir, name, 'manifest.json')));
  if (folder === undefined) throw new Error(`no export in ${dir}`);
  const manifest = JSON.parse(readFileSync(join(dir, folder, 'manifest.json'), 'utf8')) as {
    counts: { exported: number };
  };
  const sizes = withZipFileEntries(join(dir, folder, 'shifts.xlsx'), shiftsSheetSizes);
  const rows = Math.max(1, manifest.counts.exported);
  return { xml: sizes.xml / rows, compressed: sizes.compressed / rows };
}

/**
 * csv,xlsx split by division, in this process as `run` would export it (ConfiguredExport): the
 * command line has no flag for a split, an export definition asks for it.
 */
async function splitExport(input: MeasureInput): Promise<MeasureOutcome> {
  const local = !input.dest.startsWith('s3://');
  const dir = local ? mkdtempSync(join(input.dest || tmpdir(), 'bench-split-')) : input.dest;
  const env = {
    ...process.env,
    WFM_BASE_URL: input.url,
    WFM_TOKEN: input.token,
    WFM_COMPRESSION: COMPRESSION,
  };
  const [{ ConfiguredExport }, { loadExportConfig }, { loadS3Config }] = await Promise.all([
    import('../src/export/configured-export.js'),
    import('../src/config/export-config.js'),
    import('../src/config/s3-config.js'),
  ]);
  const configured = await ConfiguredExport.open({
    dest: dir,
    exportConfig: loadExportConfig(env),
    wfm: requireUpstream(loadWfmConfig(env)),
    s3Config: () => loadS3Config(env),
    logger: silentLogger,
  });
  try {
    const result = await configured.run({
      period: input.period,
      formats: ['csv', 'xlsx'],
      split: 'division',
    });
    return { rows: result.manifest.counts.fetched };
  } finally {
    await configured.close();
    if (local) rmSync(dir, { recursive: true, force: true });
  }
}

/** The peer: DuckDB from the report file to a CSV with local times (duckdb-export.ts). */
async function duckdb(input: MeasureInput): Promise<MeasureOutcome> {
  if (input.reportFile === undefined || input.reportRows === undefined)
    throw new Error('duckdb: no report file');
  // Always a local folder: DuckDB writes files, and an s3:// dest is for the export lines.
  const local = input.dest !== '' && !input.dest.startsWith('s3://') ? input.dest : tmpdir();
  const dir = mkdtempSync(join(local, 'bench-duckdb-'));
  try {
    const { duckdbCsvExport } = await import('./duckdb-export.js');
    await duckdbCsvExport({
      reportFile: input.reportFile,
      csvFile: join(dir, 'shifts.csv'),
      period: input.period,
      threads: input.threads ?? 2,
    });
    // Rows read, as the export lines count them (its CSV holds the rows inside the period).
    return { rows: input.reportRows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function collect(onText: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      onText(chunk.toString('utf8'));
      callback();
    },
  });
}

/**
 * The workbook renderer alone: up to 50,000 real records are read first, then `rows` of them
 * (cycled) are rendered into a discarding sink, as the export renders them; only
 * the rendering is timed.
 */
async function xlsxRender(input: MeasureInput): Promise<MeasureOutcome> {
  const records = await sampleRecords(input, Math.min(input.rows, 50_000));
  if (records.length === 0) throw new Error('xlsx-render: the report gave no records');
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback();
    },
  });
  const { ShiftsWorkbookWriter } = await import('../src/render/xlsx/shifts-workbook-writer.js');
  const t0 = performance.now();
  const workbook = new ShiftsWorkbookWriter(sink, {
    createdAt: new Date(0),
    creator: 'bench',
    matchRateThreshold: 0.8,
    period: input.period,
  });
  for (let i = 0; i < input.rows; i++) {
    const wait = workbook.addShift(records[i % records.length] as ShiftRecord);
    if (wait) await wait;
  }
  const pipeline = new ShiftPipeline({ period: input.period, divisions: divisionDirectory([]) });
  await workbook.finish(pipeline.finish(), {
    period: input.period,
    generatedAt: new Date(0),
    sourceBaseUrl: input.url,
    counts: pipeline.counts,
    exportId: 'bench',
    toolVersion: 'bench',
  });
  return { rows: input.rows, bytes, stageMs: performance.now() - t0 };
}

async function sampleRecords(input: MeasureInput, wanted: number): Promise<ShiftRecord[]> {
  const client = clientFor(input);
  const records: ShiftRecord[] = [];
  try {
    const divisions = await client.listDivisions({ fields: ['dirs'] });
    const pipeline = new ShiftPipeline({ period: input.period, divisions: divisionDirectory(divisions) });
    for await (const batch of client.readShifts({ window: upstreamWindow(input.period) })) {
      for (const record of pipeline.processBatch(batch).shifts) records.push(record);
      if (records.length >= wanted) break;
    }
    return records.slice(0, wanted);
  } finally {
    await client.close();
  }
}
