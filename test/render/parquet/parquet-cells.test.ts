// Rows converted into cells (as an export thread does) and written with writeCells() make the same
// file as the same rows written as records, whatever the runs and the row groups; DuckDB reads it.

import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { buffer as readAll } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { ParquetCellEncoder, type ParquetCells } from '../../../src/render/parquet/parquet-cells.js';
import { ParquetTableWriter } from '../../../src/render/parquet/parquet-table-writer.js';
import { readParquet } from '../../support/parquet-reader.js';
import { syntheticShiftRecords } from '../csv/synthetic-shift-records.js';

const folder = mkdtempSync(join(tmpdir(), 'parquet-cells-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The cells of `records`, in arrays of their own (as carved from a cut's buffer). */
function cellsOf(encoder: ParquetCellEncoder<ShiftRecord>, records: readonly ShiftRecord[]): ParquetCells {
  const size = encoder.encodeAll(records);
  const cells = {
    rows: size.rows,
    numbers: new Float64Array(size.numbers),
    ints: new BigInt64Array(size.ints),
    nulls: new Uint8Array(size.nulls),
    textIndexes: new Int32Array(size.textIndexes),
    text: new Uint8Array(size.textBytes),
    textEnds: new Int32Array(size.textEnds),
  };
  encoder.copyInto(cells);
  return cells;
}

async function fromRecords(records: readonly ShiftRecord[], rowGroupRows: number): Promise<Buffer> {
  const sink = new PassThrough();
  const bytes = readAll(sink);
  const writer = new ParquetTableWriter(SHIFT_COLUMNS, sink, { createdBy: 'test', rowGroupRows });
  for (const record of records) await writer.write(record);
  await writer.end();
  return bytes;
}

/** Cut into pieces of `cuts` rows, each written in runs of `run` rows. */
async function fromCells(
  records: readonly ShiftRecord[],
  rowGroupRows: number,
  cut: number,
  run: number,
): Promise<Buffer> {
  const sink = new PassThrough();
  const bytes = readAll(sink);
  const encoder = new ParquetCellEncoder(SHIFT_COLUMNS);
  const writer = new ParquetTableWriter(SHIFT_COLUMNS, sink, { createdBy: 'test', rowGroupRows });
  for (let from = 0; from < records.length; from += cut) {
    const cells = cellsOf(encoder, records.slice(from, from + cut));
    for (let first = 0; first < cells.rows; first += run)
      await writer.writeCells(cells, first, Math.min(cells.rows, first + run));
  }
  const result = await writer.end();
  expect(result.rows).toBe(records.length);
  return bytes;
}

describe('ParquetCellEncoder and ParquetTableWriter.writeCells', () => {
  it('write the same bytes as the records, whatever the cuts, runs and row groups (property)', async () => {
    const records = syntheticShiftRecords(600, 11);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 250 }),
        fc.integer({ min: 1, max: 700 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 600 }),
        async (rowGroupRows, cut, run, rows) => {
          const some = records.slice(0, rows);
          const expected = await fromRecords(some, rowGroupRows);
          expect((await fromCells(some, rowGroupRows, cut, run)).equals(expected)).toBe(true);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('write a file DuckDB reads back as the records', async () => {
    const records = syntheticShiftRecords(2_500, 7);
    const viaRecords = join(folder, 'records.parquet');
    const viaCells = join(folder, 'cells.parquet');
    const writer = new ParquetTableWriter(SHIFT_COLUMNS, createWriteStream(viaRecords), {
      createdBy: 'test',
      rowGroupRows: 1_000,
    });
    for (const record of records) await writer.write(record);
    await writer.end();
    writeFileSync(viaCells, await fromCells(records, 1_000, 333, 77));
    expect(readFileSync(viaCells).equals(readFileSync(viaRecords))).toBe(true);
    const back = await readParquet(viaCells, SHIFT_COLUMNS);
    const expected = await readParquet(viaRecords, SHIFT_COLUMNS);
    expect(back.rowGroups).toBe(3);
    expect(back.rows).toEqual(expected.rows);
    expect(back.rows.length).toBe(2_500);
  });
});
