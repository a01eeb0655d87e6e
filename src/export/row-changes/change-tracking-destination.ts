// Wraps a Destination so that each export records what changed since the previous export of the
// same period, without touching the export use case: while shifts.csv streams through, every
// record's shift id and a hash of its bytes are noted (row-fingerprints.ts); at publish() the
// sorted fingerprints are stored as `row-hashes.bin` beside the other files, the previous export's
// manifest and row-hashes file are read back through the same Destination (local folder or S3
// alike) and compared, and the manifest gets `previous` and `changes` before it is published.
//
// Counting changes is bookkeeping: when the previous export has no row-hashes file (an export
// without CSV, or one written by `shift-export run`), or it cannot be read, `changes` is left out
// and a warning logged; the export itself goes on. The same holds when the fingerprints cannot be
// spilled to or sorted in their temp files: the export is published without row-hashes.bin.
// Without shifts.csv (xlsx only) nothing is recorded at all. Failing to store row-hashes.bin fails
// the export like any other file. The fingerprints' temp files are removed when the publication
// ends, published or aborted.

import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {
  Destination,
  ExportFileSink,
  ExportPublication,
  PublishedExport,
} from '../../destinations/destination.js';
import type { Period } from '../../domain/period.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { parseManifest, renderManifest, type Manifest, type ManifestFile } from '../../render/manifest.js';
import { CsvRecordScanner } from './csv-record-scanner.js';
import { RowChangeCounter, type RowChanges } from './row-change-counter.js';
import { RowFingerprints, type SortedFingerprints } from './row-fingerprints.js';
import { ROW_HASHES_CONTENT_TYPE, ROW_HASHES_FILE } from './row-hashes-format.js';

export const TRACKED_FILE = 'shifts.csv';

export interface ChangeTrackingOptions {
  /** The CSV delimiter the export writes with. */
  readonly csvDelimiter: ',' | ';' | '\t';
  readonly logger: Logger;
  /** Where row fingerprints spill while shifts.csv is written; default os.tmpdir(). */
  readonly tempDir?: string;
}

/** The shift id at the start of a record (digits up to the first delimiter), or undefined. */
export function leadingId(record: Buffer, delimiter: number): number | undefined {
  let value = 0;
  let i = 0;
  for (; i < record.length; i++) {
    const byte = record[i] as number;
    if (byte === delimiter) break;
    if (byte < 0x30 || byte > 0x39 || i >= 15) return undefined;
    value = value * 10 + (byte - 0x30);
  }
  return i === 0 ? undefined : value;
}

/** Notes the fingerprint of each record passing through, unchanged. */
class FingerprintingStream extends Transform {
  readonly fingerprints: RowFingerprints;
  /** Why fingerprints could not be taken (a record without a numeric id...), when that happened. */
  problem: string | undefined;
  readonly #scanner: CsvRecordScanner;

  constructor(delimiter: number, tempDir: string | undefined) {
    super();
    this.fingerprints = new RowFingerprints(tempDir === undefined ? {} : { tempDir });
    this.#scanner = new CsvRecordScanner((record) => {
      if (this.problem !== undefined) return;
      const id = leadingId(record, delimiter);
      if (id === undefined) {
        this.problem = `a ${TRACKED_FILE} record does not start with a numeric shift id`;
        return;
      }
      try {
        this.fingerprints.add(id, record);
      } catch (error) {
        // The temp file could not be written (disk full...): bookkeeping, not a reason to fail.
        this.problem = `the row fingerprints could not be spilled to a temp file: ${describeError(error)}`;
      }
    });
  }

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    this.#scanner.push(bytes);
    callback(null, bytes);
  }

  override _flush(callback: TransformCallback): void {
    this.#scanner.end();
    callback();
  }
}

export class ChangeTrackingDestination implements Destination {
  readonly #inner: Destination;
  readonly #options: ChangeTrackingOptions;
  readonly #published = new Map<string, Manifest>();

  constructor(inner: Destination, options: ChangeTrackingOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  get description(): string {
    return this.#inner.description;
  }

  async begin(period: Period, exportId: string, signal?: AbortSignal): Promise<ExportPublication> {
    const publication = await this.#inner.begin(period, exportId, signal);
    return new ChangeTrackingPublication(publication, this.#inner, period, this.#options, (m) =>
      this.#published.set(m.export_id, m),
    );
  }

  /**
   * The manifest as published for `exportId` (with row-hashes.bin, `previous` and `changes`),
   * which differs from the one the export built; undefined before it is published.
   */
  publishedManifest(exportId: string): Manifest | undefined {
    return this.#published.get(exportId);
  }

  readManifest(period: Period): Promise<string | undefined> {
    return this.#inner.readManifest(period);
  }

  openPublishedFile(period: Period, path: string): Promise<NodeJS.ReadableStream> {
    return this.#inner.openPublishedFile(period, path);
  }

  check(): Promise<void> {
    return this.#inner.check();
  }
}

class ChangeTrackingPublication implements ExportPublication {
  readonly #inner: ExportPublication;
  readonly #destination: Destination;
  readonly #period: Period;
  readonly #options: ChangeTrackingOptions;
  readonly #onPublished: (manifest: Manifest) => void;
  #tracker: FingerprintingStream | undefined;

  constructor(
    inner: ExportPublication,
    destination: Destination,
    period: Period,
    options: ChangeTrackingOptions,
    onPublished: (manifest: Manifest) => void,
  ) {
    this.#inner = inner;
    this.#destination = destination;
    this.#period = period;
    this.#options = options;
    this.#onPublished = onPublished;
  }

  openFile(name: string, contentType: string): ExportFileSink {
    const sink = this.#inner.openFile(name, contentType);
    if (name !== TRACKED_FILE || this.#tracker !== undefined) return sink;
    const tracker = new FingerprintingStream(this.#options.csvDelimiter.charCodeAt(0), this.#options.tempDir);
    this.#tracker = tracker;
    const piped = pipeline(tracker, sink.stream);
    piped.catch(() => undefined);
    return {
      stream: tracker,
      done: async () => {
        await piped;
        return sink.done();
      },
    };
  }

  async publish(manifestJson: string): Promise<PublishedExport> {
    const manifest = parseManifest(manifestJson);
    const tracker = this.#tracker;
    if (tracker === undefined) return this.#publish(manifest);
    const log = this.#options.logger.child({ exportId: manifest.export_id });
    let next: Manifest;
    try {
      next = await this.#withChanges(manifest, tracker, log);
    } finally {
      await this.#dispose(tracker, log);
    }
    return this.#publish(next);
  }

  /** The manifest with row-hashes.bin (stored here), `previous` and `changes`, as far as known. */
  async #withChanges(manifest: Manifest, tracker: FingerprintingStream, log: Logger): Promise<Manifest> {
    if (tracker.problem !== undefined) {
      log.warn({ reason: tracker.problem }, 'rows changed since the previous export are not counted');
      return manifest;
    }
    let sorted: SortedFingerprints;
    try {
      sorted = await tracker.fingerprints.finish();
    } catch (error) {
      log.warn(
        { err: describeError(error) },
        'the row fingerprints could not be sorted; rows changed since the previous export are not counted',
      );
      return manifest;
    }
    const stored = await this.#store(sorted);
    const previous = await this.#previousManifest(log);
    const changes = previous === undefined ? undefined : await this.#changes(previous, sorted, log);
    return {
      ...manifest,
      files: [...manifest.files, stored],
      ...(previous === undefined || manifest.previous !== undefined
        ? {}
        : { previous: { export_id: previous.export_id, generated_at: previous.generated_at } }),
      ...(previous === undefined || changes === undefined
        ? {}
        : { changes: { previous_export_id: previous.export_id, ...changes } }),
    };
  }

  async #publish(manifest: Manifest): Promise<PublishedExport> {
    const published = await this.#inner.publish(renderManifest(manifest));
    this.#onPublished(manifest);
    return published;
  }

  async abort(reason?: unknown): Promise<void> {
    try {
      await this.#inner.abort(reason);
    } finally {
      if (this.#tracker !== undefined) await this.#dispose(this.#tracker, this.#options.logger);
    }
  }

  /** Removes the fingerprints' temp files; a file left behind is logged, not a failed export. */
  async #dispose(tracker: FingerprintingStream, log: Logger): Promise<void> {
    try {
      await tracker.fingerprints.dispose();
    } catch (error) {
      log.warn({ err: describeError(error) }, 'a temp file of row fingerprints could not be removed');
    }
  }

  async #store(sorted: SortedFingerprints): Promise<ManifestFile> {
    const sink = this.#inner.openFile(ROW_HASHES_FILE, ROW_HASHES_CONTENT_TYPE);
    // Both must succeed: a failed read destroys the sink, and done() rejects too.
    const [, stored] = await Promise.all([pipeline(sorted.stream(), sink.stream), sink.done()]);
    return {
      name: stored.name,
      path: stored.path,
      bytes: stored.bytes,
      sha256: stored.sha256,
      rows: sorted.count,
      content_type: ROW_HASHES_CONTENT_TYPE,
    };
  }

  async #previousManifest(log: Logger): Promise<Manifest | undefined> {
    try {
      const text = await this.#destination.readManifest(this.#period);
      return text === undefined ? undefined : parseManifest(text);
    } catch (error) {
      log.warn(
        { err: describeError(error) },
        'the previous manifest of the period cannot be read; rows changed are not counted',
      );
      return undefined;
    }
  }

  async #changes(
    previous: Manifest,
    current: SortedFingerprints,
    log: Logger,
  ): Promise<RowChanges | undefined> {
    const entry = previous.files.find((f) => f.name === ROW_HASHES_FILE);
    if (entry === undefined) {
      log.info(
        { previousExportId: previous.export_id },
        `the previous export has no ${ROW_HASHES_FILE}; rows changed are not counted`,
      );
      return undefined;
    }
    try {
      const counter = new RowChangeCounter(current);
      const hash = createHash('sha256');
      const stream = await this.#destination.openPublishedFile(this.#period, entry.path);
      for await (const chunk of stream as AsyncIterable<Buffer | string>) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        hash.update(bytes);
        counter.push(bytes);
      }
      // Another export may have replaced the previous one between reading its manifest and its file.
      if (hash.digest('hex') !== entry.sha256) {
        log.warn(
          { previousExportId: previous.export_id },
          `the previous ${ROW_HASHES_FILE} does not match its manifest; rows changed are not counted`,
        );
        return undefined;
      }
      return counter.finish();
    } catch (error) {
      log.warn(
        { err: describeError(error), previousExportId: previous.export_id },
        'rows changed since the previous export cannot be counted',
      );
      return undefined;
    }
  }
}
