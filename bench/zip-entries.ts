// The entries of a zip file (a workbook) read from its central directory: name, method, sizes and
// the entry's data, inflated. Enough for the bench to take a written workbook's sheet XML apart;
// no zip64, no encryption (a workbook the export writes has neither).

import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly size: number;
  /** The entry's bytes as stored (compressed when method is 8). */
  readonly raw: Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

export function zipEntries(zip: Buffer): ZipEntry[] {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_HEADER) throw new Error(`no central header at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const crc32 = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (zip.readUInt32LE(local) !== LOCAL_HEADER) throw new Error(`no local header for ${name}`);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.push({
      name,
      method,
      crc32,
      compressedSize,
      size,
      raw: zip.subarray(dataStart, dataStart + compressedSize),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** An entry's uncompressed bytes. */
export function entryData(entry: ZipEntry): Buffer {
  return entry.method === 8 ? inflateRawSync(entry.raw) : Buffer.from(entry.raw);
}

/**
 * The uncompressed bytes of a workbook's Shifts sheets ("Shifts", "Shifts (2)"…, found by name
 * through workbook.xml and its relationships) and their compressed bytes in the archive.
 */
export function shiftsSheetSizes(zip: Buffer): { readonly xml: number; readonly compressed: number } {
  const entries = new Map(zipEntries(zip).map((entry) => [entry.name, entry]));
  const text = (name: string): string => {
    const entry = entries.get(name);
    return entry === undefined ? '' : entryData(entry).toString('utf8');
  };
  const targets = new Map(
    [...text('xl/_rels/workbook.xml.rels').matchAll(/Id="([^"]+)"[^>]*Target="([^"]+)"/g)].map((m) => [
      m[1],
      m[2],
    ]),
  );
  let xml = 0;
  let compressed = 0;
  for (const m of text('xl/workbook.xml').matchAll(/<sheet [^>]*name="([^"]+)"[^>]*r:id="([^"]+)"/g)) {
    if (!/^Shifts( \(\d+\))?$/.test(m[1] ?? '')) continue;
    const target = (targets.get(m[2] ?? '') ?? '').replace(/^\/?(xl\/)?/, 'xl/');
    const entry = entries.get(target);
    if (entry === undefined) continue;
    xml += entry.size;
    compressed += entry.compressedSize;
  }
  return { xml, compressed };
}
