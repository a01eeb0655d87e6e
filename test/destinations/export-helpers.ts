// Helpers for destination tests: drive a whole export through the Destination interface as the
// export use case does (open files, stream bytes with backpressure, publish a manifest last), read
// streams back, and capture log lines.

import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CONTENT_TYPES } from '../../src/destinations/content-headers.js';
import type { Destination, PublishedExport, StoredFile } from '../../src/destinations/destination.js';
import type { Period } from '../../src/domain/period.js';
import { createLogger, type Logger } from '../../src/logger.js';

export const MiB = 1024 * 1024;

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Deterministic bytes that do not repeat within a part (so a misplaced part changes the hash). */
export function testBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(Math.ceil(length / 4) * 4);
  let state = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < out.length; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out.writeUInt32LE(state, i);
  }
  return out.subarray(0, length);
}

/** Writes `data` in 256 KiB chunks, honouring backpressure, then ends the stream. */
export async function writeAll(stream: NodeJS.WritableStream, data: Buffer): Promise<void> {
  const chunk = 256 * 1024;
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < data.length; offset += chunk) yield data.subarray(offset, offset + chunk);
  }
  await pipeline(Readable.from(chunks()), stream as Writable);
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream as AsyncIterable<Buffer | string>) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

export interface ExportRun {
  readonly stored: StoredFile[];
  readonly manifestJson: string;
  readonly published: PublishedExport;
}

/** One complete export of `files` (name -> bytes), manifest last, as the export use case runs it. */
export async function runExport(
  destination: Destination,
  period: Period,
  exportId: string,
  files: Readonly<Record<string, Buffer>>,
): Promise<ExportRun> {
  const publication = await destination.begin(period, exportId);
  try {
    const sinks = Object.entries(files).map(([name, bytes]) => ({
      bytes,
      sink: publication.openFile(name, contentTypeOf(name)),
    }));
    await Promise.all(sinks.map(({ sink, bytes }) => writeAll(sink.stream, bytes)));
    const stored = await Promise.all(sinks.map(({ sink }) => sink.done()));
    const manifestJson = JSON.stringify({ export_id: exportId, period, files: stored }, null, 2);
    const published = await publication.publish(manifestJson);
    return { stored, manifestJson, published };
  } catch (error) {
    await publication.abort(error);
    throw error;
  }
}

/** A pino logger whose lines are kept (parsed) instead of written anywhere. */
export function capturingLogger(): {
  logger: Logger;
  lines: () => Record<string, unknown>[];
  text: () => string;
} {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      raw.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  return {
    logger,
    lines: () =>
      raw
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    text: () => raw.join(''),
  };
}

function contentTypeOf(fileName: string): string {
  const extension = fileName.slice(fileName.lastIndexOf('.') + 1);
  return extension in CONTENT_TYPES
    ? CONTENT_TYPES[extension as keyof typeof CONTENT_TYPES]
    : 'application/octet-stream';
}
