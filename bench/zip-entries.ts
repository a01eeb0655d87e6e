// The entries of a zip file (a workbook) read from its central directory: name, method, sizes and
// the entry's data, inflated. Enough for the bench to take a written workbook's sheet XML apart;
// no zip64, no encryption (a workbook the export writes has neither). An entry's bytes are read
// when asked for, so that the bench can size a workbook's sheets from its file without reading
// the file: a 300k-row workbook read whole would add ~55 MB to the peak RSS the bench reports.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly size: number;
  /** The entry's bytes as stored (compressed when method is 8), read on first use. */
  readonly raw: Buffer;
}

/** Where a zip's bytes come from: a buffer, or a file read piece by piece. */
interface ZipBytes {
  readonly size: number;
  read(at: number, length: number): Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record (22 bytes) and the longest archive comment it may be followed by. */
const END_SEARCH_BYTES = 22 + 0xffff;

class LazyZipEntry implements ZipEntry {
  #raw: Buffer | undefined;

  constructor(
    readonly name: string,
    readonly method: number,
    readonly crc32: number,
    readonly compressedSize: number,
    readonly size: number,
    private readonly bytes: ZipBytes,
    private readonly local: number,
  ) {}

  get raw(): Buffer {
    if (this.#raw === undefined) {
      const header = this.bytes.read(this.local, 30);
      if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new Error(`no local header for ${this.name}`);
      const dataStart = this.local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
      this.#raw = this.bytes.read(dataStart, this.compressedSize);
    }
    return this.#raw;
  }
}

function entriesOf(bytes: ZipBytes): ZipEntry[] {
  const tailAt = Math.max(0, bytes.size - END_SEARCH_BYTES);
  const tail = bytes.read(tailAt, bytes.size - tailAt);
  let end = tail.length - 22;
  while (end >= 0 && tail.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = tail.readUInt16LE(end + 10);
  const directorySize = tail.readUInt32LE(end + 12);
  const directory = bytes.read(tail.readUInt32LE(end + 16), directorySize);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (directory.readUInt32LE(at) !== CENTRAL_HEADER) throw new Error(`no central header at entry ${i}`);
    const nameLength = directory.readUInt16LE(at + 28);
    entries.push(
      new LazyZipEntry(
        directory.toString('utf8', at + 46, at + 46 + nameLength),
        directory.readUInt16LE(at + 10),
        directory.readUInt32LE(at + 16),
        directory.readUInt32LE(at + 20),
        directory.readUInt32LE(at + 24),
        bytes,
        directory.readUInt32LE(at + 42),
      ),
    );
    at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
  }
  return entries;
}

export function zipEntries(zip: Buffer): ZipEntry[] {
  return entriesOf({ size: zip.length, read: (at, length) => zip.subarray(at, at + length) });
}

/** The entries of the zip file at `path`, each entry's bytes read from the file only when asked for. */
export function withZipFileEntries<T>(path: string, use: (entries: ZipEntry[]) => T): T {
  const fd = openSync(path, 'r');
  try {
    const read = (at: number, length: number): Buffer => {
      const buffer = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const got = readSync(fd, buffer, done, length - done, at + done);
        if (got === 0) throw new Error(`${path} ends at ${at + done}, before the ${length} bytes asked for`);
        done += got;
      }
      return buffer;
    };
    return use(entriesOf({ size: fstatSync(fd).size, read }));
  } finally {
    closeSync(fd);
  }
}

/** An entry's uncompressed bytes. */
export function entryData(entry: ZipEntry): Buffer {
  return entry.method === 8 ? inflateRawSync(entry.raw) : Buffer.from(entry.raw);
}

/**
 * The uncompressed bytes of a workbook's Shifts sheets ("Shifts", "Shifts (2)"…, found by name
 * through workbook.xml and its relationships) and their compressed bytes in the archive; only the
 * two small parts that find them are read.
 */
export function shiftsSheetSizes(zip: readonly ZipEntry[]): {
  readonly xml: number;
  readonly compressed: number;
} {
  const entries = new Map(zip.map((entry) => [entry.name, entry]));
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
