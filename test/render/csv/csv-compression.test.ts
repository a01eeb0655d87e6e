import { PassThrough, Writable } from 'node:stream';
import { buffer as readAllBytes } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { csvContentEncoding, csvFileName, csvOutput } from '../../../src/render/csv/csv-compression.js';
import { CsvSinkError, CsvTableWriter } from '../../../src/render/csv/csv-table-writer.js';
import { syntheticShiftRecords } from './synthetic-shift-records.js';

const RECORDS = syntheticShiftRecords(3000, 11);

/** shifts.csv of RECORDS written through csvOutput into a PassThrough; the stored bytes. */
async function stored(compression: 'none' | 'gzip'): Promise<Buffer> {
  const file = new PassThrough();
  const bytes = readAllBytes(file);
  const writer = new CsvTableWriter(SHIFT_COLUMNS, csvOutput(file, compression), {
    delimiter: ';',
    bom: true,
  });
  for (const record of RECORDS) {
    const wait = writer.write(record);
    if (wait) await wait;
  }
  await writer.end();
  return bytes;
}

describe('csv compression', () => {
  it('names a gzip file .csv.gz and serves it with Content-Encoding gzip', () => {
    expect(csvFileName('shifts.csv', 'gzip')).toBe('shifts.csv.gz');
    expect(csvFileName('shifts.csv', 'none')).toBe('shifts.csv');
    expect(csvContentEncoding('gzip')).toBe('gzip');
    expect(csvContentEncoding('none')).toBeUndefined();
  });

  it('stores bytes that decompress to exactly the plain file, the same on every run', async () => {
    const plain = await stored('none');
    const gzip = await stored('gzip');
    expect(plain.length).toBeGreaterThan(1_000_000);
    expect(gzip.length).toBeLessThan(plain.length / 3);
    expect(gunzipSync(gzip).equals(plain)).toBe(true);
    expect((await stored('gzip')).equals(gzip)).toBe(true);
  });

  it('fails the CSV writer when the file behind the gzip stream fails', async () => {
    const file = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    const writer = new CsvTableWriter(SHIFT_COLUMNS, csvOutput(file, 'gzip'), { delimiter: ',', bom: false });
    const failure = (async () => {
      for (const record of RECORDS) {
        const wait = writer.write(record);
        if (wait) await wait;
      }
      await writer.end();
    })();
    await expect(failure).rejects.toBeInstanceOf(CsvSinkError);
    expect(file.destroyed).toBe(true);
  });
});
