// EXPORT_THREADS against the sandbox over HTTP, whole exports into local folders:
// - the files are the same bytes with 1 to 4 threads, and the golden ones (GOLDEN below), the
//   Shifts sheet's rows rendered on the export threads that parsed them;
// - a CSV-only export worked on export threads is the same bytes as on the export's thread,
//   whatever the threads (2 to 4), the cuts (down to one row each), the period and the filter
//   (property, over a smaller sandbox);
// - a Parquet export, alone or beside CSV and the workbook, is the same bytes whether its rows
//   were worked on export threads (which convert their Parquet values) or on the export's thread;
// - an export split by division is the same bytes whether its rows were worked on export threads
//   (which render the division spool's lines, then work each division's lines into its files) or
//   on the export's thread;
// - with the statistics on a thread of their own (EXPORT_STATISTICS_THREAD), whole and split by
//   division, an export is the same bytes as with them on the export's thread;
// - an export thread that dies fails the export, with or without a workbook, and split by division
//   while the divisions' files are written, with EXPORT_THREAD_FAILED, publishes nothing, and does
//   not hang; so does the statistics thread.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportFormat } from '../../src/domain/export-format.js';
import type { RowFilter } from '../../src/domain/row-filter.js';
import type { CsvCompression } from '../../src/render/csv/csv-compression.js';
import { createDestination } from '../../src/destinations/create-destination.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { renderThreadStarted } from '../../src/export/answering-thread.js';
import { runExport } from '../../src/export/run-export.js';
import type { Manifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { WfmClient } from '../../src/wfm/wfm-client.js';
import { startTestSandbox, TEST_SANDBOX_END_DATE } from '../support/sandbox.js';
import { capturingLogger } from '../destinations/export-helpers.js';
import { endThreadWhenSent } from '../support/thread-ender.js';
import { testWfmConfig } from '../wfm/wfm-test-support.js';

const PERIOD = { from: '2024-03-25', to: TEST_SANDBOX_END_DATE };
const NOW = new Date('2024-04-01T03:00:00Z');

/**
 * sha256 of the files the single-threaded export wrote for this sandbox and period before render
 * threads existed (commit b5eb2f6); since then the workbook's document properties name version
 * 0.2.0 as their creator, and the sandbox's manager lists hold one manager of each kind a mailer
 * must skip (a login that is no address: that user's rows and summary changed) and a first name
 * with a line break (the division_managers column of its division); and the Shifts sheet's part
 * is deflated in 1 MiB blocks at once (parallel-deflate.ts: each block sync-flushed and primed
 * with the 32 KiB before it), so the workbook's compressed bytes changed while every part's
 * content stayed the same; and docProps/core.xml names the workbook's language (dc:language en);
 * and dates are in the built-in formats 14 and 22, every sheet has a printed header and footer,
 * and the Overview's chart axes have titles; and table rows leave out spans, x14ac:dyDescent and
 * the references of cells that follow the cell before them in their row (the workbook's bytes only);
 * and the Shifts sheet's repeated texts (users, shops, regions, divisions, managers, offsets, statuses)
 * are indices into a shared-strings table (xl/sharedStrings.xml), the same texts read. A change to
 * what the files hold changes them on purpose: then update them from a run at EXPORT_THREADS=1,
 * and say why in the commit.
 */
const GOLDEN: Readonly<Record<string, string>> = {
  'shifts.csv': 'bcda505504b5db6dec5bbe0755c493fbdd1629f189ab30d33284d5412c2ebde3',
  'rejected.csv': 'fdc09d4585fffd2873156c8eb40459c13eddb1008c8759eb20e6bb724d0a2709',
  'shifts.xlsx': '0f2766743fa1797c4dbca84578350ce913fc78c9ad62eff0cbe187c9eb360f6b',
  'summary_by_division.csv': '4b5e7e2892cbb3c6e2ab3b7147b6f2d66036fa97ec81f3feb615ef7c3f90eb11',
  'summary_by_day.csv': '76566eeee5b8ec0f2a4381523e055a33305cc158fef758e0e0057bb72d7a2308',
  'summary_by_region.csv': '5958bc1fc6923117b979df8605a3618bc0d9df147cc3094b320d8dad68e5950e',
  'summary_by_shop.csv': '89844f17276f83c1d575ddbbafabe10393533f907dfcbba929baa3ea902150ab',
  'summary_by_user.csv': '48dcdc433d1a1eadb838eda4aea2abad520cf7e9a969946d1ed4707bc37db79c',
  'row-hashes.bin': 'fc6b1a06cff5af5309d1410b1394288567683159b150ef3a9f9f4b7d5fcc44bf',
};

let sandbox: RunningSandbox;
/** For the property: small enough for many exports, with every kind of row the large one has. */
let smallSandbox: RunningSandbox;
const folders: string[] = [];

beforeAll(async () => {
  // Rows that are rejected, repeated and outside the period are the sandbox's defaults.
  [sandbox, smallSandbox] = await Promise.all([
    startTestSandbox({ rows: 20_000 }),
    startTestSandbox({ rows: 1_500 }),
  ]);
  smallSandbox.setFaults({ wfm_timers: { invalidRowRate: 0.05, duplicateRowRate: 0.1 } });
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), smallSandbox?.close()]);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'export-threads-'));
  folders.push(dir);
  return dir;
}

async function exportWith(
  threads: number,
  dest: string,
  formats: readonly ExportFormat[] = ['csv', 'xlsx'],
  logger: Logger = silentLogger,
  more: {
    readonly filter?: RowFilter;
    readonly csvCompression?: CsvCompression;
    /** The reader's batch (cut) bytes; 1: a cut a row. */
    readonly batchBytes?: number;
    readonly period?: { readonly from: string; readonly to: string };
    readonly upstream?: RunningSandbox;
    readonly split?: 'division';
    /** EXPORT_STATISTICS_THREAD. */
    readonly statisticsThread?: boolean;
  } = {},
): Promise<Manifest> {
  const source = new WfmClient(testWfmConfig((more.upstream ?? sandbox).url), {
    reportBatchBytes: more.batchBytes ?? 16 * 1024,
  });
  const destination = await createDestination(
    dest,
    () => {
      throw new Error('no S3 here');
    },
    logger,
  );
  try {
    const result = await runExport(
      {
        period: more.period ?? PERIOD,
        formats,
        ...(more.filter === undefined ? {} : { filter: more.filter }),
        ...(more.split === undefined ? {} : { split: more.split }),
      },
      {
        source,
        destination,
        settings: {
          csvDelimiter: ',',
          csvDecimal: '.',
          csvCompression: more.csvCompression ?? 'none',
          csvBom: true,
          matchRateThreshold: 0.8,
          sourceBaseUrl: 'http://wfm.example',
          threads,
          ...(more.statisticsThread === undefined ? {} : { statisticsThread: more.statisticsThread }),
        },
        logger,
        now: () => NOW,
        exportId: 'golden',
      },
    );
    return result.manifest;
  } finally {
    await source.close();
  }
}

function hashes(manifest: Manifest): Record<string, string> {
  return Object.fromEntries(manifest.files.map((file) => [file.name, file.sha256]));
}

describe('EXPORT_THREADS', () => {
  it('writes the same bytes with 1, 2, 3 and 4 threads, and the golden bytes', async () => {
    const one = await exportWith(1, folder());
    const recorded = capturingLogger();
    const two = await exportWith(2, folder(), ['csv', 'xlsx'], recorded.logger);
    const three = await exportWith(3, folder());
    const four = await exportWith(4, folder());
    expect(one.counts.exported).toBeGreaterThan(3000);
    expect(one.counts.rejected + one.counts.duplicates + one.counts.outside_window).toBeGreaterThan(0);
    expect(two).toEqual(one);
    expect(three).toEqual(one);
    expect(four).toEqual(one);
    expect(hashes(one)).toMatchObject(GOLDEN);
    // The export threads rendered the sheet rows: most batches came back from them whole.
    const rendered = recorded.lines().find((line) => line['msg'] === 'shifts rendered on export threads');
    expect(rendered?.['threadBatches']).toBeGreaterThan(20);
    expect(Number(rendered?.['styleRetries'])).toBeLessThan(Number(rendered?.['threadBatches']) / 4);
  });

  it('writes a CSV-only export worked on 2, 3 and 4 export threads as the same bytes as on one (golden)', async () => {
    const one = await exportWith(1, folder(), ['csv']);
    for (const threads of [2, 3, 4]) expect(await exportWith(threads, folder(), ['csv'])).toEqual(one);
    const csvFiles = Object.fromEntries(Object.entries(GOLDEN).filter(([name]) => name !== 'shifts.xlsx'));
    expect(hashes(one)).toMatchObject(csvFiles);
    // With a scope filter and gzip too: filtered_out counted the same, the same compressed bytes.
    const filter = { divisions: [1, 3] };
    const filtered = await exportWith(1, folder(), ['csv'], silentLogger, { filter, csvCompression: 'gzip' });
    expect(filtered.counts.filtered_out).toBeGreaterThan(0);
    expect(await exportWith(3, folder(), ['csv'], silentLogger, { filter, csvCompression: 'gzip' })).toEqual(
      filtered,
    );
  });

  it('writes a CSV-only export worked on export threads as the same bytes as on one, whatever the threads, cuts, period and filter (property)', async () => {
    const met = { exported: 0, rejected: 0, duplicates: 0, outside_window: 0, filtered_out: 0 };
    const days = ['2024-03-26', '2024-03-27', '2024-03-28', '2024-03-29', '2024-03-30', '2024-03-31'];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        // From a cut a row (1 byte: every row ends one) to several hundred rows a cut.
        fc.oneof(fc.constant(1), fc.integer({ min: 100, max: 4000 }), fc.constant(64 * 1024)),
        fc.integer({ min: 0, max: days.length - 1 }),
        fc.integer({ min: 0, max: 2 }),
        fc.option(fc.subarray([1, 2, 3, 4], { minLength: 1 }), { nil: undefined }),
        async (threads, batchBytes, first, length, divisions) => {
          const period = { from: days[first]!, to: days[Math.min(days.length - 1, first + length)]! };
          const more = {
            upstream: smallSandbox,
            period,
            batchBytes,
            ...(divisions === undefined ? {} : { filter: { divisions } }),
          };
          const one = await exportWith(1, folder(), ['csv'], silentLogger, more);
          const many = await exportWith(threads, folder(), ['csv'], silentLogger, more);
          expect(many).toEqual(one);
          for (const kind of Object.keys(met) as (keyof typeof met)[]) met[kind] += one.counts[kind] ?? 0;
        },
      ),
      { numRuns: 12 },
    );
    // The exports met every kind of row: exported, rejected, repeated, outside the period, filtered out.
    for (const [kind, rows] of Object.entries(met)) expect(rows, kind).toBeGreaterThan(0);
  });

  it('writes a Parquet export, alone and beside CSV and the workbook, worked on 2 and 3 export threads as the same bytes as on one', async () => {
    for (const formats of [['parquet'], ['parquet', 'csv', 'xlsx']] as ExportFormat[][]) {
      const one = await exportWith(1, folder(), formats);
      expect(one.counts.exported).toBeGreaterThan(3000);
      let started = 0;
      const onStart = (): void => {
        started++;
      };
      subscribe(renderThreadStarted.name, onStart);
      try {
        expect(await exportWith(2, folder(), formats)).toEqual(one);
      } finally {
        unsubscribe(renderThreadStarted.name, onStart);
      }
      // The rows were worked on the two export threads, not on the export's thread.
      expect(started).toBe(2);
      expect(await exportWith(3, folder(), formats)).toEqual(one);
      expect(hashes(one)).toMatchObject(
        Object.fromEntries(
          Object.entries(GOLDEN).filter(([name]) =>
            formats.includes(name.endsWith('.xlsx') ? 'xlsx' : 'csv'),
          ),
        ),
      );
    }
    // A cut a row: every run of values the threads convert is one row long.
    const more = { upstream: smallSandbox, batchBytes: 1 };
    const one = await exportWith(1, folder(), ['parquet'], silentLogger, more);
    expect(await exportWith(3, folder(), ['parquet'], silentLogger, more)).toEqual(one);
  });

  it('writes an export split by division, its rows worked on 2 and 3 export threads, as the same bytes as on one', async () => {
    const formats: ExportFormat[] = ['csv', 'xlsx', 'parquet'];
    const split = { split: 'division' } as const;
    const one = await exportWith(1, folder(), formats, silentLogger, split);
    expect(one.divisions?.length).toBeGreaterThan(1);
    let started = 0;
    const onStart = (): void => {
      started++;
    };
    const captured = capturingLogger();
    subscribe(renderThreadStarted.name, onStart);
    try {
      expect(await exportWith(2, folder(), formats, captured.logger, split)).toEqual(one);
    } finally {
      unsubscribe(renderThreadStarted.name, onStart);
    }
    // The rows were worked on the two export threads, not on the export's thread; so were the
    // divisions' files, on the same two threads (no thread started for them), some divisions' spool
    // cut into several runs (8 divisions: 25 runs on 2026-11-27).
    expect(started).toBe(2);
    const written = captured.lines().find((line) => line.msg === 'divisions written');
    expect(written?.divisions).toBe(one.divisions?.length);
    expect(written?.threadRuns).toBeGreaterThan(one.divisions?.length ?? Infinity);
    expect(await exportWith(3, folder(), formats, silentLogger, { ...split, batchBytes: 1 })).toEqual(one);
  });

  it('writes the same bytes with the statistics on a thread of their own, whole (golden) and split by division', async () => {
    const formats: readonly ExportFormat[] = ['csv', 'xlsx', 'parquet'];
    const here = capturingLogger();
    const one = await exportWith(1, folder(), formats, here.logger);
    expect(hashes(one)).toMatchObject(GOLDEN);
    const statistics = { statisticsThread: true };
    const there = capturingLogger();
    expect(await exportWith(2, folder(), formats, there.logger, statistics)).toEqual(one);
    // The log says where the statistics were counted.
    const published = (log: ReturnType<typeof capturingLogger>): Record<string, unknown> | undefined =>
      log.lines().find((line) => line['msg'] === 'export published');
    expect(published(there)?.['statisticsThread']).toBe(true);
    expect(published(here)).toBeDefined();
    expect(published(here)).not.toHaveProperty('statisticsThread');
    expect(await exportWith(3, folder(), formats, silentLogger, { ...statistics, batchBytes: 1 })).toEqual(
      one,
    );
    const split = { split: 'division' } as const;
    const splitOne = await exportWith(1, folder(), ['csv', 'xlsx'], silentLogger, split);
    expect(await exportWith(2, folder(), ['csv', 'xlsx'], silentLogger, { ...split, ...statistics })).toEqual(
      splitOne,
    );
  });

  it('fails an export when its statistics thread dies, publishing nothing', async () => {
    const dest = folder();
    // The statistics thread is the one sent batches of rows: it ends as it is sent its first.
    const ender = endThreadWhenSent((kind) => kind === 'rows');
    try {
      await expect(
        exportWith(2, dest, ['csv', 'xlsx'], silentLogger, { statisticsThread: true }),
      ).rejects.toMatchObject({ code: 'EXPORT_THREAD_FAILED', retryable: true });
    } finally {
      ender.stop();
    }
    expect(ender.ended).toBe(1);
    expect(readdirSync(dest)).toEqual([]);
  });

  it('fails a CSV-only export when an export thread dies, publishing nothing', async () => {
    const dest = folder();
    const onStart = (message: unknown): void => {
      void (message as { thread: Worker }).thread.terminate();
    };
    subscribe(renderThreadStarted.name, onStart);
    try {
      await expect(exportWith(2, dest, ['csv'])).rejects.toMatchObject({
        code: 'EXPORT_THREAD_FAILED',
        retryable: true,
      });
    } finally {
      unsubscribe(renderThreadStarted.name, onStart);
    }
    expect(readdirSync(dest)).toEqual([]);
  });

  it('fails an export split by division when an export thread dies while the divisions are written, publishing nothing', async () => {
    const dest = folder();
    // The thread ends as it is sent its first run of a division's spool lines: the report is read
    // by then, and the divisions' files are being written.
    const ender = endThreadWhenSent((kind) => kind === 'spool');
    try {
      await expect(
        exportWith(2, dest, ['csv', 'xlsx'], silentLogger, { split: 'division' }),
      ).rejects.toMatchObject({
        code: 'EXPORT_THREAD_FAILED',
        retryable: true,
      });
    } finally {
      ender.stop();
    }
    expect(ender.ended).toBe(1);
    expect(readdirSync(dest)).toEqual([]);
  });

  it('fails a CSV and workbook export when an export thread dies, publishing nothing', async () => {
    const dest = folder();
    const onStart = (message: unknown): void => {
      void (message as { thread: Worker }).thread.terminate();
    };
    subscribe(renderThreadStarted.name, onStart);
    try {
      await expect(exportWith(2, dest)).rejects.toMatchObject({
        code: 'EXPORT_THREAD_FAILED',
        retryable: true,
      });
    } finally {
      unsubscribe(renderThreadStarted.name, onStart);
    }
    expect(readdirSync(dest)).toEqual([]);
  });
});
