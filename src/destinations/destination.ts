// Where the bytes of an export go. One small interface for a local folder and for S3: files are
// streamed in as they are produced, and an export becomes visible only when `publish` writes its
// manifest, last. A failed or aborted export leaves nothing visible and the previous export of the
// same period intact.

import type { Writable } from 'node:stream';
import type { Period } from '../domain/period.js';

export interface StoredFile {
  /** File name, e.g. `shifts.csv`. */
  readonly name: string;
  /** Where the file is, relative to the folder (or key prefix) that holds manifest.json. */
  readonly path: string;
  readonly bytes: number;
  /** Hex sha256 of the stored bytes. */
  readonly sha256: string;
}

export interface ExportFileSink {
  /** Write the file's bytes here (honour backpressure), then end() it. */
  readonly stream: Writable;
  /** Resolves once the file is durably stored; rejects when storing failed. */
  done(): Promise<StoredFile>;
}

export interface PublishedExport {
  /** Human-readable location of the published export (folder path or s3:// URL of the manifest). */
  readonly location: string;
  /** Location of manifest.json. */
  readonly manifestLocation: string;
}

/** One export being written. Exactly one of publish() or abort() ends it. */
export interface ExportPublication {
  /**
   * Starts a new file of the export. `contentEncoding` (e.g. `gzip` for `shifts.csv.gz`) says how
   * the bytes are encoded over `contentType`; S3 stores it as the object's Content-Encoding.
   */
  openFile(name: string, contentType: string, contentEncoding?: string): ExportFileSink;
  /** Stores manifest.json last and makes the export visible atomically, replacing an earlier one. */
  publish(manifestJson: string): Promise<PublishedExport>;
  /** Drops everything written so far (aborting uploads); the earlier export stays as it was. */
  abort(reason?: unknown): Promise<void>;
}

export interface Destination {
  /** Where exports go, for logs and messages: an absolute folder path or `s3://bucket/prefix`. */
  readonly description: string;
  /** Starts writing the export of `period`; `exportId` is unique per attempt. */
  begin(period: Period, exportId: string, signal?: AbortSignal): Promise<ExportPublication>;
  /** The manifest.json text of the published export of `period`, or undefined when there is none. */
  readManifest(period: Period): Promise<string | undefined>;
  /** Reads a published file of `period` (by its manifest path), for downloads. */
  openPublishedFile(period: Period, path: string): Promise<NodeJS.ReadableStream>;
  /** Throws when the destination cannot be written (health checks, start-up). */
  check(): Promise<void>;
}
