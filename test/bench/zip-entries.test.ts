import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { entryData, shiftsSheetSizes, withZipFileEntries, zipEntries } from '../../bench/zip-entries.js';
import { XlsxWorkbook } from '../../src/render/xlsx/exceljs-adapter.js';
import { tempFolderForTest } from '../support/temp-folder.js';

async function smallWorkbook(sheetName = 'Data'): Promise<Buffer> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const book = new XlsxWorkbook(sink, { createdAt: new Date(Date.UTC(2024, 0, 1)), creator: 'test' });
  const sheet = book.addSheet({ name: sheetName, columnWidths: [10, 10], pageSetup: {} });
  for (let i = 0; i < 50; i++) sheet.addRow([`row ${i}`, i], []);
  sheet.close();
  await book.finish({ title: 'zip entries' });
  return Buffer.concat(chunks);
}

describe('zipEntries', () => {
  it("reads a workbook's parts with the sizes and CRCs its central directory gives", async () => {
    const entries = zipEntries(await smallWorkbook());
    const sheet = entries.find((entry) => entry.name === 'xl/worksheets/sheet1.xml');
    expect(sheet).toBeDefined();
    const xml = entryData(sheet!);
    expect(xml.length).toBe(sheet!.size);
    expect(crc32(xml)).toBe(sheet!.crc32);
    expect(xml.toString('utf8')).toContain('row 49');
  });

  it('reads the same entries from a file, piece by piece, as from its bytes', async () => {
    const bytes = await smallWorkbook('Shifts');
    const path = join(tempFolderForTest('zip-'), 'book.xlsx');
    writeFileSync(path, bytes);
    const fromBytes = zipEntries(bytes);
    const fromFile = withZipFileEntries(path, (entries) =>
      entries.map((e) => ({ name: e.name, size: e.size, crc32: e.crc32, data: entryData(e) })),
    );
    expect(fromFile).toEqual(
      fromBytes.map((e) => ({ name: e.name, size: e.size, crc32: e.crc32, data: entryData(e) })),
    );
    const sheet = fromBytes.find((entry) => entry.name === 'xl/worksheets/sheet1.xml')!;
    expect(withZipFileEntries(path, shiftsSheetSizes)).toEqual({
      xml: sheet.size,
      compressed: sheet.compressedSize,
    });
  });

  it('refuses bytes that are not a zip file', () => {
    expect(() => zipEntries(Buffer.alloc(100))).toThrow(/not a zip file/);
  });
});
