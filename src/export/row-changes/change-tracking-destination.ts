// Wraps a Destination so that each export records what changed since the previous export of the
// same period, without touching the export use case: while shifts.csv streams through, every
// record's shift id and a hash of its bytes are noted (row-fingerprints.ts); at publish() the
// sorted fingerprints are stored as `row-hashes.bin` beside the other files, the previous export's
// manifest and row-hashes file are read back through the same Destination (local folder or S3
// alike) and compared, and the manifest gets `previous` and `changes` before it is published.
//
// Counting changes is bookkeeping, so it degrades instead of failing the export, but never
// silently: when the fingerprints cannot be spilled to or sorted in their temp files (TMPDIR full
// or unwritable), the export is published without row-hashes.bin; when the previous export's
// manifest cannot be read, lists no row-hashes file (an xlsx-only export) or that file is damaged,
// nothing can be counted. Either way the manifest says `"changes": null` with
// `changes_unavailable: {reason, message}`, which the job's result and `run`'s summary repeat,
// and a warning is logged. `previous` is recorded whenever the previous manifest was read.
// Without shifts.csv (xlsx only) nothing is recorded at all. Failing to store row-hashes.bin fails
// the export like any other file. The fingerprints' temp files are removed when the publication
// ends, published or aborted.

import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
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
import { redactSecrets } from '../../redact-secrets.js';
import type { CsvDelimiter } from '../../render/csv/csv-line-encoder.js';
import {
  CHANGES_MESSAGE_MAX,
  parseManifest,
  renderManifest,
  type ChangesUnavailableReason,
  type Manifest,
  type ManifestFile,
} from '../../render/manifest.js';
import { CsvRecordScanner } from './csv-record-scanner.js';
import { RowChangeCounter } from './row-change-counter.js';
import { RowFingerprints, type SortedFingerprints } from './row-fingerprints.js';
import { ROW_HASHES_CONTENT_TYPE, ROW_HASHES_FILE } from './row-hashes-format.js';

export const TRACKED_FILE = 'shifts.csv';

type ChangesUnavailable = NonNullable<Manifest['changes_unavailable']>;

/** Why changes are not counted, as the manifest holds it: one line, no secret, bounded. */
function unavailable(reason: ChangesUnavailableReason, message: string): ChangesUnavailable {
  const line = redactSecrets(message).replace(/\s*\n\s*/g, ' ');
  return {
    reason,
    message: line.length > CHANGES_MESSAGE_MAX ? `${line.slice(0, CHANGES_MESSAGE_MAX - 1)}…` : line,
  };
}

/** `manifest` saying why its changes are not counted; a warning says it too. */
function notCounted(manifest: Manifest, why: ChangesUnavailable, log: Logger): Manifest {
  log.warn(
    { reason: why.reason, why: why.message },
    'rows changed since the previous export are not counted; the manifest says why',
  );
  return { ...manifest, changes: null, changes_unavailable: why };
}

function isUnavailable<T extends object>(value: T | ChangesUnavailable): value is ChangesUnavailable {
  return 'reason' in value && 'message' in value;
}

export interface ChangeTrackingOptions {
  /** The CSV delimiter the export writes with. */
  readonly csvDelimiter: CsvDelimiter;
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

  constructor(delimiter: number, tempDir: string) {
    super();
    this.fingerprints = new RowFingerprints({ tempDir });
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
        this.problem = `the row fingerprints could not be written to the temp folder ${tempDir}: ${describeError(error)}`;
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
    const tracker = new FingerprintingStream(
      this.#options.csvDelimiter.charCodeAt(0),
      this.#options.tempDir ?? tmpdir(),
    );
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

  /**
   * The manifest with row-hashes.bin (stored here), `previous` and `changes` — or `changes: null`
   * and why, logged as a warning.
   */
  async #withChanges(manifest: Manifest, tracker: FingerprintingStream, log: Logger): Promise<Manifest> {
    const previous = await this.#previousManifest();
    const next: Manifest = {
      ...manifest,
      ...(previous === undefined || isUnavailable(previous) || manifest.previous !== undefined
        ? {}
        : { previous: { export_id: previous.export_id, generated_at: previous.generated_at } }),
    };
    const sorted = await this.#sortedFingerprints(tracker);
    if (isUnavailable(sorted)) return notCounted(next, sorted, log);
    const stored: Manifest = { ...next, files: [...manifest.files, await this.#store(sorted)] };
    if (previous === undefined) return stored;
    const changes = isUnavailable(previous) ? previous : await this.#changes(previous, sorted);
    return isUnavailable(changes) ? notCounted(stored, changes, log) : { ...stored, changes };
  }

  /** The fingerprints sorted for row-hashes.bin, or why there are none. */
  async #sortedFingerprints(tracker: FingerprintingStream): Promise<SortedFingerprints | ChangesUnavailable> {
    if (tracker.problem !== undefined) return unavailable('row_hashes_not_written', tracker.problem);
    try {
      return await tracker.fingerprints.finish();
    } catch (error) {
      const folder = this.#options.tempDir ?? tmpdir();
      return unavailable(
        'row_hashes_not_written',
        `the row fingerprints could not be sorted in the temp folder ${folder}: ${describeError(error)}`,
      );
    }
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

  /** The previous export's manifest; undefined when there is none; why it cannot be read. */
  async #previousManifest(): Promise<Manifest | ChangesUnavailable | undefined> {
    try {
      const text = await this.#destination.readManifest(this.#period);
      return text === undefined ? undefined : parseManifest(text);
    } catch (error) {
      return unavailable(
        'previous_manifest_unreadable',
        `the previous manifest of the period cannot be read: ${describeError(error)}`,
      );
    }
  }

  async #changes(
    previous: Manifest,
    current: SortedFingerprints,
  ): Promise<NonNullable<Manifest['changes']> | ChangesUnavailable> {
    const entry = previous.files.find((f) => f.name === ROW_HASHES_FILE);
    if (entry === undefined) {
      return unavailable(
        'previous_row_hashes_missing',
        `the previous export ${previous.export_id} has no ${ROW_HASHES_FILE} (it wrote no ${TRACKED_FILE}, or its row fingerprints could not be written)`,
      );
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
        return unavailable(
          'previous_row_hashes_unreadable',
          `the ${ROW_HASHES_FILE} of the previous export ${previous.export_id} does not match its manifest`,
        );
      }
      return { previous_export_id: previous.export_id, ...counter.finish() };
    } catch (error) {
      return unavailable(
        'previous_row_hashes_unreadable',
        `the ${ROW_HASHES_FILE} of the previous export ${previous.export_id} cannot be read: ${describeError(error)}`,
      );
    }
  }
}
