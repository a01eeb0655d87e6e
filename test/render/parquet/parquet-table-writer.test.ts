import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { text as readAllText } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { CellValueError } from '../../../src/render/cell-text.js';
import { CsvTableWriter } from '../../../src/render/csv/csv-table-writer.js';
import {
  ParquetSinkError,
  ParquetTableWriter,
  type ParquetTableOptions,
} from '../../../src/render/parquet/parquet-table-writer.js';
import { csvRecordsUnguarded, differences, readParquet } from '../../support/parquet-reader.js';
import { syntheticShiftRecords } from '../csv/synthetic-shift-records.js';

const folder = mkdtempSync(join(tmpdir(), 'parquet-table-writer-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function writeAll(
  records: readonly ShiftRecord[],
  sink: Writable,
  options: Partial<ParquetTableOptions> = {},
): Promise<{ rows: number; bytes: number }> {
  const writer = new ParquetTableWriter(SHIFT_COLUMNS, sink, { createdBy: 'test', ...options });
  for (const record of records) {
    const wait = writer.write(record);
    if (wait) await wait;
  }
  return writer.end();
}

async function shiftsCsv(records: readonly ShiftRecord[]): Promise<string> {
  const sink = new PassThrough();
  const text = readAllText(sink);
  const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: false });
  for (const record of records) await writer.write(record);
  await writer.end();
  return text;
}

describe('ParquetTableWriter', () => {
  it('writes every column of shifts.csv typed, and DuckDB reads back what the CSV says', async () => {
    const records = syntheticShiftRecords(2_500, 7);
    const path = join(folder, 'shifts.parquet');
    const result = await writeAll(records, createWriteStream(path), { rowGroupRows: 1_000 });
    expect(result.rows).toBe(2_500);

    const back = await readParquet(path, SHIFT_COLUMNS);
    expect(back.rowGroups).toBe(3);
    const csv = csvRecordsUnguarded(await shiftsCsv(records), SHIFT_COLUMNS);
    expect(differences(back, csv, SHIFT_COLUMNS)).toEqual([]);
    // The sample has what needs care: nulls, a formula-like comment, line breaks, Cyrillic.
    const comments = back.rows.map((row) => row[SHIFT_COLUMNS.findIndex((c) => c.name === 'comment')]);
    expect(comments).toContain('=HYPERLINK("http://example.invalid","click")');
    expect(comments).toContain('Line one\nline two');
    // Null stays null and an empty text stays empty, which the CSV cannot tell apart.
    const commentAt = SHIFT_COLUMNS.findIndex((c) => c.name === 'comment');
    expect(comments).toContain('');
    expect(comments).toContain(null);
    records.forEach((record, r) => expect(back.rows[r]?.[commentAt]).toBe(record.shift.comment));
  });

  it('writes a file with no rows that a reader opens with every column typed', async () => {
    const path = join(folder, 'empty.parquet');
    expect(await writeAll([], createWriteStream(path))).toMatchObject({ rows: 0 });
    const back = await readParquet(path, SHIFT_COLUMNS);
    expect(differences(back, [], SHIFT_COLUMNS)).toEqual([]);
  });

  it('sends each row group to the sink as it fills, not at the end', async () => {
    const seen: number[] = [];
    let received = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done();
      },
    });
    const writer = new ParquetTableWriter(SHIFT_COLUMNS, sink, { createdBy: 'test', rowGroupRows: 100 });
    for (const record of syntheticShiftRecords(350, 3)) {
      const wait = writer.write(record);
      if (wait) await wait;
      seen.push(received);
    }
    // Nothing but the 4-byte magic before the first group fills; then a group at every 100th row.
    expect(seen[98]).toBe(0);
    expect(seen[99]).toBeGreaterThan(4);
    expect(seen[198]).toBe(seen[100]);
    expect(seen[199]).toBeGreaterThan(seen[198] ?? 0);
    const result = await writer.end();
    expect(result.bytes).toBe(received);
  });

  it('waits for a slow sink to drain', async () => {
    const pending: (() => void)[] = [];
    const sink = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        pending.push(done);
      },
    });
    const writer = new ParquetTableWriter(SHIFT_COLUMNS, sink, { createdBy: 'test', rowGroupRows: 50 });
    let wait: Promise<void> | undefined;
    for (const record of syntheticShiftRecords(50, 5)) wait = writer.write(record);
    expect(wait).toBeInstanceOf(Promise);
    let drained = false;
    void wait?.then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    pending.splice(0).forEach((done) => done());
    await wait;
    expect(drained).toBe(true);
  });

  it('fails with PARQUET_SINK_FAILED when the sink fails', async () => {
    const sink = new Writable({
      write(_chunk, _encoding, done) {
        done(new Error('disk full'));
      },
    });
    const failure = await writeAll(syntheticShiftRecords(30, 2), sink, { rowGroupRows: 10 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ParquetSinkError);
    expect(failure).toMatchObject({ code: 'PARQUET_SINK_FAILED', retryable: true });
  });

  it('refuses a duration that INT32 cannot hold rather than writing another number', () => {
    const [record] = syntheticShiftRecords(1, 9);
    const huge = { ...record!, shift: { ...record!.shift, duration: 2 ** 31 } } as ShiftRecord;
    const writer = new ParquetTableWriter(SHIFT_COLUMNS, new PassThrough(), { createdBy: 'test' });
    expect(() => writer.write(huge)).toThrow(CellValueError);
  });
});
