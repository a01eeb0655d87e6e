// How a CSV file is stored: as written, or gzip-compressed as `*.csv.gz` (what Airbyte and dlt
// write by default). The CSV writer writes into the stream given here and the bytes are compressed
// as the rows arrive, so memory stays zlib's window whatever the file's size; the destination
// hashes what it stores, so the manifest lists the compressed bytes' size and sha256.

import { pipeline, type Writable } from 'node:stream';
import { createGzip } from 'node:zlib';

/** The compressions we write: the one declaration (config/export-config.ts is held to it by the types). */
export type CsvCompression = 'none' | 'gzip';

/** The file's name as stored: `shifts.csv` or `shifts.csv.gz`. */
export function csvFileName(name: string, compression: CsvCompression): string {
  return compression === 'gzip' ? `${name}.gz` : name;
}

/** The HTTP Content-Encoding the stored file is served with; undefined when it is plain CSV. */
export function csvContentEncoding(compression: CsvCompression): 'gzip' | undefined {
  return compression === 'gzip' ? 'gzip' : undefined;
}

/**
 * The stream to write the CSV text into: `file` itself, or a gzip stream feeding it. A failure of
 * either destroys both, so the CSV writer sees a failed destination as it would without gzip, and
 * ending the gzip stream ends `file`.
 */
export function csvOutput(file: Writable, compression: CsvCompression): Writable {
  if (compression === 'none') return file;
  const gzip = createGzip();
  // The failure reaches the writer through the streams it destroys; nothing more to do here.
  pipeline(gzip, file, () => undefined);
  return gzip;
}
