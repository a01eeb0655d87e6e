// One export being written to S3: each file streams into its own upload under the version prefix
// `<base>/<exportId>/`; publish() puts `<base>/manifest.json` last, only after every upload
// succeeded, then removes versions older than the one it replaced. The first failure (a file's
// upload, abort(), the AbortSignal) stops every other upload, aborts their multipart uploads and
// deletes what this version had stored. The scheme is described in s3-destination.ts.
// Every object it stores names its export in x-amz-meta-export-id, like the manifest: old versions
// are deleted object by object only when the key has our layout and the object says it is ours.

import { HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Period } from '../domain/period.js';
import { AbortedError, describeError, ShiftExportError } from '../errors.js';
import type { Logger } from '../logger.js';
import { CONTENT_TYPES, contentDisposition } from './content-headers.js';
import type { ExportFileSink, ExportPublication, PublishedExport, StoredFile } from './destination.js';
import {
  abortError,
  DestinationInvalidError,
  isS3NotFound,
  toS3DestinationError,
} from './destination-errors.js';
import { abortOpenUploads, deleteObjects, listObjects } from './s3-objects.js';
import { startS3FileUpload, type S3FileUpload, type SseParams } from './s3-file-upload.js';
import {
  assertFilePath,
  assertManifestJson,
  fileNameOf,
  isExportId,
  isFilePath,
  MANIFEST_NAME,
} from './safe-names.js';

/** User metadata on manifest.json naming the version it points at (x-amz-meta-export-id). */
export const EXPORT_ID_METADATA = 'export-id';

/** HEADs of old versions' objects sent at once: each is a round trip; the pool has sockets to spare. */
const HEAD_CONCURRENCY = 8;

export interface S3PublicationOptions {
  readonly client: S3Client;
  readonly bucket: string;
  /** `<prefix>/<from>_<to>` (no trailing slash). */
  readonly base: string;
  readonly period: Period;
  readonly exportId: string;
  readonly sse: SseParams;
  readonly partSizeBytes: number;
  readonly queueSize: number;
  readonly staleVersionAgeMs: number;
  /** Versions kept after a publish, the new and the replaced one included (at least 2). */
  readonly keepVersions: number;
  readonly logger: Logger;
  readonly signal?: AbortSignal | undefined;
}

type State = 'open' | 'publishing' | 'published' | 'failed';

/** What manifest.json says about the version it points at, before we replace it. */
type CurrentVersion =
  | { readonly kind: 'none' }
  | { readonly kind: 'known'; readonly exportId: string }
  | { readonly kind: 'unknown' };

/** A file of the export once its object is stored. */
interface StoredUpload {
  readonly name: string;
  readonly done: Promise<StoredFile>;
  readonly stored: true;
}

export class S3Publication implements ExportPublication {
  readonly #o: S3PublicationOptions;
  /**
   * Each file's upload until it is stored; then only what publish() and a cleanup need of it: a
   * stored upload's stream still holds its writer's listeners, and through them the writer (a
   * split export stores thousands of files).
   */
  readonly #files = new Map<string, S3FileUpload | StoredUpload>();
  readonly #storedKeys = new Set<string>();
  #state: State = 'open';
  #failure: ShiftExportError | undefined;
  #cleanup: Promise<void> | undefined;
  #publishing: Promise<PublishedExport> | undefined;
  readonly #onAbort = (): void => {
    if (this.#state === 'open' && this.#o.signal !== undefined) void this.#fail(abortError(this.#o.signal));
  };

  constructor(options: S3PublicationOptions) {
    this.#o = options;
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  get #versionPrefix(): string {
    return `${this.#o.base}/${this.#o.exportId}/`;
  }

  get #manifestKey(): string {
    return `${this.#o.base}/${MANIFEST_NAME}`;
  }

  #url(key: string): string {
    return `s3://${this.#o.bucket}/${key}`;
  }

  openFile(name: string, contentType: string, contentEncoding?: string): ExportFileSink {
    if (this.#state !== 'open') {
      throw (
        this.#failure ?? new DestinationInvalidError(`openFile(${name}) after the export was ${this.#state}`)
      );
    }
    // `name` is a file's path in the export: `shifts.csv`, or `divisions/12/shifts.csv`.
    assertFilePath(name);
    if (this.#files.has(name))
      throw new DestinationInvalidError(`file ${name} was already opened in this export`);
    const upload = startS3FileUpload({
      client: this.#o.client,
      bucket: this.#o.bucket,
      key: `${this.#versionPrefix}${name}`,
      name: fileNameOf(name),
      path: `${this.#o.exportId}/${name}`,
      contentType,
      ...(contentEncoding === undefined ? {} : { contentEncoding }),
      contentDisposition: contentDisposition(this.#o.period, fileNameOf(name)),
      metadata: { [EXPORT_ID_METADATA]: this.#o.exportId },
      sse: this.#o.sse,
      partSizeBytes: this.#o.partSizeBytes,
      queueSize: this.#o.queueSize,
    });
    this.#files.set(name, upload);
    upload.done.then(
      () => {
        this.#storedKeys.add(upload.key);
        this.#files.set(name, { name: upload.name, done: upload.done, stored: true });
      },
      (error: unknown) => {
        // While publishing, publish() handles failures itself.
        if (this.#state === 'open') void this.#fail(error);
      },
    );
    return { stream: upload.stream, done: () => upload.done };
  }

  publish(manifestJson: string): Promise<PublishedExport> {
    if (this.#state === 'failed') {
      return (async () => {
        await this.#cleanup;
        throw this.#failure ?? new DestinationInvalidError('publish() after the export failed');
      })();
    }
    if (this.#state !== 'open')
      return Promise.reject(new DestinationInvalidError(`publish() after the export was ${this.#state}`));
    this.#state = 'publishing';
    this.#publishing = this.#publish(manifestJson);
    return this.#publishing;
  }

  async #publish(manifestJson: string): Promise<PublishedExport> {
    const { client, bucket, exportId, logger } = this.#o;
    try {
      assertManifestJson(manifestJson);
      const files = [...this.#files.values()];
      // A destroyed file is not "unfinished": its done() rejects below with the reason.
      const unfinished = files
        .filter((f) => !('stored' in f) && !f.stream.writableEnded && !f.stream.destroyed)
        .map((f) => f.name);
      if (unfinished.length > 0) {
        throw new DestinationInvalidError(`publish() was called before ${unfinished.join(', ')} ended`);
      }
      await Promise.all(files.map((f) => f.done));
      if (this.#o.signal?.aborted === true) throw abortError(this.#o.signal);
    } catch (error) {
      await this.#fail(error);
      throw this.#failure ?? error;
    }

    const current = await this.#currentVersion().catch((error: unknown): CurrentVersion => {
      logger.warn(
        { error: describeError(error) },
        'could not read the current manifest; old versions are kept',
      );
      return { kind: 'unknown' };
    });

    try {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: this.#manifestKey,
          Body: manifestJson,
          ContentType: CONTENT_TYPES.json,
          ContentDisposition: contentDisposition(this.#o.period, MANIFEST_NAME),
          // The key is rewritten by every rerun of the period: caches must ask again.
          CacheControl: 'no-cache',
          Metadata: { [EXPORT_ID_METADATA]: exportId },
          ...this.#o.sse,
        }),
      );
    } catch (error) {
      // The PUT may have landed although its answer was lost: then the export IS published, and
      // deleting its files would break it. Ask before cleaning up.
      const landed = await this.#currentVersion().then(
        (v) => v.kind === 'known' && v.exportId === exportId,
        () => undefined,
      );
      if (landed !== true) {
        const failure = toS3DestinationError(error, 'upload of manifest.json', this.#url(this.#manifestKey));
        if (landed === false) {
          await this.#fail(failure);
        } else {
          // Cannot tell: leave the files (a later publish removes them once stale) and report.
          this.#state = 'failed';
          this.#failure = failure;
          this.#cleanup = Promise.resolve();
          logger.warn(
            { error: describeError(failure) },
            'manifest upload failed and its outcome is unknown; the version files are kept',
          );
        }
        throw failure;
      }
      logger.warn(
        { error: describeError(error) },
        'manifest upload reported an error but the manifest is in place',
      );
    }
    this.#state = 'published';
    this.#o.signal?.removeEventListener('abort', this.#onAbort);

    await this.#removeOldVersions(current).catch((error: unknown) => {
      logger.warn({ error: describeError(error) }, 'could not remove old export versions');
    });
    return { location: this.#url(`${this.#o.base}/`), manifestLocation: this.#url(this.#manifestKey) };
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.#state === 'published') return;
    if (this.#state === 'publishing') {
      // publish() either finishes (nothing left to abort) or fails and cleans up after itself.
      await this.#publishing?.catch(() => undefined);
      return;
    }
    await this.#fail(
      reason instanceof ShiftExportError ? reason : new AbortedError('the export was aborted', reason),
    );
  }

  /** The first failure stops everything; later calls wait for the same cleanup. Never throws. */
  #fail(error: unknown): Promise<void> {
    if (this.#cleanup !== undefined) return this.#cleanup;
    const failure = toS3DestinationError(error, 'export', this.#url(this.#versionPrefix));
    this.#state = 'failed';
    this.#failure = failure;
    this.#o.signal?.removeEventListener('abort', this.#onAbort);
    this.#cleanup = (async () => {
      const files = [...this.#files.values()];
      for (const file of files) if (!('stored' in file)) file.stop(failure);
      await Promise.allSettled(files.map((f) => f.done));
      await this.#deleteVersion();
    })();
    return this.#cleanup;
  }

  /** Aborts multipart uploads lib-storage could not abort, then deletes the version's objects. */
  async #deleteVersion(): Promise<void> {
    const { client, bucket, logger } = this.#o;
    const prefix = this.#versionPrefix;
    try {
      const left = await abortOpenUploads(client, bucket, prefix);
      if (left > 0) logger.warn({ prefix, uploads: left }, 'aborted multipart uploads that were left open');
    } catch (error) {
      logger.warn(
        {
          prefix,
          error: describeError(
            toS3DestinationError(error, 'listing of multipart uploads', this.#url(prefix)),
          ),
        },
        'could not check for open multipart uploads',
      );
    }
    try {
      const keys = new Set(this.#storedKeys);
      for await (const object of listObjects(client, bucket, prefix)) keys.add(object.key);
      if (keys.size > 0) await deleteObjects(client, bucket, [...keys]);
    } catch (error) {
      logger.warn(
        {
          prefix,
          error: describeError(
            toS3DestinationError(error, 'deletion of the failed version', this.#url(prefix)),
          ),
        },
        'could not delete the objects of a failed export; a later publish of the period removes them once stale',
      );
    }
  }

  async #currentVersion(): Promise<CurrentVersion> {
    const exportId = await this.#writtenBy(this.#manifestKey);
    if (exportId === undefined) return { kind: 'none' };
    return exportId === '' ? { kind: 'unknown' } : { kind: 'known', exportId };
  }

  /**
   * Keeps this version, the one it replaced (a reader may still be downloading it) and the newest
   * others up to keepVersions, and deletes the rest — only those whose newest object is staleVersionAgeMs older than the new manifest
   * (server clock), so an export another worker is still writing is never removed from under it —
   * and of those only objects it wrote: `<base>/<exportId>/<file>` whose metadata names that
   * export id (one HEAD per candidate, a few at a time). Anything else under
   * the period (someone's notes, deeper keys, objects without our metadata) is left alone.
   */
  async #removeOldVersions(replaced: CurrentVersion): Promise<void> {
    const { client, bucket, base, exportId, staleVersionAgeMs, keepVersions, logger } = this.#o;
    if (replaced.kind === 'unknown') {
      logger.info({ base }, 'the replaced manifest names no version; old versions are kept');
      return;
    }
    const keep = new Set([exportId, ...(replaced.kind === 'known' ? [replaced.exportId] : [])]);
    const versions = new Map<string, { keys: string[]; newest: number }>();
    let manifestTime: number | undefined;
    for await (const object of listObjects(client, bucket, `${base}/`)) {
      const rest = object.key.slice(base.length + 1);
      const time = object.lastModified?.getTime() ?? Number.POSITIVE_INFINITY;
      if (rest === MANIFEST_NAME) {
        manifestTime = time;
        continue;
      }
      const slash = rest.indexOf('/');
      if (slash <= 0) continue; // not ours: leave it
      const version = rest.slice(0, slash);
      if (keep.has(version) || !isExportId(version) || !isFilePath(rest.slice(slash + 1))) continue;
      const entry = versions.get(version) ?? { keys: [], newest: Number.NEGATIVE_INFINITY };
      entry.keys.push(object.key);
      entry.newest = Math.max(entry.newest, time);
      versions.set(version, entry);
    }
    const cutoff = (manifestTime ?? Date.now()) - staleVersionAgeMs;
    const newestFirst = [...versions.entries()].sort(([, a], [, b]) => b.newest - a.newest);
    const stale = newestFirst
      .slice(Math.max(0, keepVersions - keep.size))
      .filter(([, v]) => v.newest <= cutoff);
    if (stale.length === 0) return;
    const candidates = stale.flatMap(([version, { keys }]) => keys.map((key) => ({ version, key })));
    const writers: (string | undefined)[] = [];
    for (let i = 0; i < candidates.length; i += HEAD_CONCURRENCY) {
      const batch = candidates.slice(i, i + HEAD_CONCURRENCY);
      writers.push(...(await Promise.all(batch.map((c) => this.#writtenBy(c.key)))));
    }
    const ours = candidates.filter((c, i) => writers[i] === c.version).map((c) => c.key);
    const foreign = candidates.filter((c, i) => writers[i] !== c.version).map((c) => c.key);
    if (foreign.length > 0)
      logger.info({ base, keys: foreign.slice(0, 20) }, 'left alone: objects not written by shift-export');
    if (ours.length === 0) return;
    await deleteObjects(client, bucket, ours);
    logger.info({ base, removed: stale.map(([id]) => id) }, 'removed old export versions');
  }

  /** The export id an object's metadata names ('' when none); undefined when there is no such object. */
  async #writtenBy(key: string): Promise<string | undefined> {
    try {
      const head = await this.#o.client.send(new HeadObjectCommand({ Bucket: this.#o.bucket, Key: key }));
      return head.Metadata?.[EXPORT_ID_METADATA] ?? '';
    } catch (error) {
      if (isS3NotFound(error)) return undefined;
      throw error;
    }
  }
}
