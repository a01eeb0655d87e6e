// The S3 destination (`--dest s3://bucket/prefix`). Layout and publishing scheme:
//
//   <prefix>/<from>_<to>/manifest.json             the published export (x-amz-meta-export-id: <exportId>)
//   <prefix>/<from>_<to>/<exportId>/shifts.csv     the files of one version (one export attempt)
//   <prefix>/<from>_<to>/<exportId>/...
//
// 1. Every file streams into its own lib-storage Upload under the version prefix as it is produced
//    (PutObject up to one part, multipart beyond), with Content-Type, a Content-Disposition naming
//    the download `<from>_<to>_<file>`, and S3_SSE encryption when set. Nothing of a version is
//    referenced until step 2, so readers of the period never see it.
// 2. publish() uploads manifest.json last, and only after every file succeeded. Its `files[].path`
//    is `<exportId>/<file>`, relative to the manifest. A PutObject of one key is atomic and S3 reads
//    are strongly consistent: a reader gets the old manifest (whose files are all still there) or
//    the new one (whose files were all stored before it).
// 3. After publishing, versions other than the new one, the one it replaced and the newest others
//    up to keepVersions (S3_KEEP_VERSIONS, default 2: none) are deleted (the replaced one stays for
//    readers still downloading it). Versions younger than staleVersionAgeMs (S3_KEEP_MIN_AGE_MINUTES)
//    are never deleted, in case another worker is still writing one.
//    Only objects we wrote are deleted: every file carries x-amz-meta-export-id naming its version,
//    and a key without it (or outside `<exportId>/<file>`) is someone else's and stays.
// 4. On failure — any upload rejects, abort(), or the AbortSignal — every started upload is stopped
//    (its body destroyed with the error; lib-storage aborts the multipart upload), open multipart
//    uploads under the version prefix are listed and aborted, the version's objects are deleted,
//    and no manifest is written: the published export is untouched. The first error is reported.

import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import type { Period } from '../domain/period.js';
import { silentLogger, type Logger } from '../logger.js';
import type { Destination, ExportPublication } from './destination.js';
import {
  abortError,
  DestinationInvalidError,
  DestinationNotFoundError,
  isS3NotFound,
  toS3DestinationError,
} from './destination-errors.js';
import { DEFAULT_STALE_VERSION_AGE_MS } from './local-folder-destination.js';
import type { SseParams } from './s3-file-upload.js';
import { S3Publication } from './s3-publication.js';
import { assertExportId, MANIFEST_NAME, relativePathSegments, safePeriodKey } from './safe-names.js';

export interface S3DestinationOptions {
  readonly client: S3Client;
  /** Signs presigned URLs for the address clients use (S3_PUBLIC_ENDPOINT); default `client`. */
  readonly presignClient?: S3Client | undefined;
  readonly bucket: string;
  /** Key prefix without leading or trailing `/`; '' for the bucket's root. */
  readonly prefix: string;
  readonly sse?: 'AES256' | 'aws:kms' | undefined;
  readonly sseKmsKeyId?: string | undefined;
  /** Multipart part size, at least 5 MiB (default 8 MiB). */
  readonly partSizeBytes?: number;
  /** Parts of one file uploaded at once (default 4). */
  readonly queueSize?: number;
  readonly staleVersionAgeMs?: number;
  /** Versions of a period kept after a publish, the new and the replaced one included (default 2). */
  readonly keepVersions?: number;
  readonly logger?: Logger;
  /** close() destroys the clients (when this destination created them). */
  readonly ownsClient?: boolean;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
/** SigV4 presigned URLs live at most 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export class S3Destination implements Destination {
  readonly description: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly #o: S3DestinationOptions;
  readonly #sse: SseParams;
  readonly #logger: Logger;

  constructor(options: S3DestinationOptions) {
    const partSize = options.partSizeBytes ?? 8 * 1024 * 1024;
    if (!Number.isInteger(partSize) || partSize < MIN_PART_SIZE) {
      throw new DestinationInvalidError(`S3 part size ${partSize} is below the minimum of 5 MiB`);
    }
    if (options.prefix.startsWith('/') || options.prefix.endsWith('/')) {
      throw new DestinationInvalidError(`S3 prefix "${options.prefix}" must not start or end with "/"`);
    }
    this.#o = options;
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.description =
      options.prefix === '' ? `s3://${options.bucket}` : `s3://${options.bucket}/${options.prefix}`;
    this.#logger = options.logger ?? silentLogger;
    this.#sse = {
      ...(options.sse === undefined ? {} : { ServerSideEncryption: options.sse }),
      ...(options.sse === 'aws:kms' && options.sseKmsKeyId !== undefined
        ? { SSEKMSKeyId: options.sseKmsKeyId }
        : {}),
    };
  }

  /** `<prefix>/<from>_<to>`: the key prefix of a period (no trailing slash). */
  periodBase(period: Period): string {
    const key = safePeriodKey(period);
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  async begin(period: Period, exportId: string, signal?: AbortSignal): Promise<ExportPublication> {
    assertExportId(exportId);
    if (signal?.aborted === true) throw abortError(signal);
    const base = this.periodBase(period);
    return new S3Publication({
      client: this.#o.client,
      bucket: this.bucket,
      base,
      period,
      exportId,
      sse: this.#sse,
      partSizeBytes: this.#o.partSizeBytes ?? 8 * 1024 * 1024,
      queueSize: this.#o.queueSize ?? 4,
      staleVersionAgeMs: this.#o.staleVersionAgeMs ?? DEFAULT_STALE_VERSION_AGE_MS,
      keepVersions: this.#o.keepVersions ?? 2,
      logger: this.#logger.child({ destination: 's3', period: safePeriodKey(period), exportId }),
      signal,
    });
  }

  async readManifest(period: Period): Promise<string | undefined> {
    const key = `${this.periodBase(period)}/${MANIFEST_NAME}`;
    try {
      const object = await this.#o.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await object.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if (isS3NotFound(error)) return undefined;
      throw toS3DestinationError(error, 'read of manifest.json', `s3://${this.bucket}/${key}`);
    }
  }

  /** The key of a published file of `period` from its manifest path (traversal refused). */
  publishedKey(period: Period, path: string): string {
    return `${this.periodBase(period)}/${relativePathSegments(path).join('/')}`;
  }

  async openPublishedFile(period: Period, path: string): Promise<NodeJS.ReadableStream> {
    const key = this.publishedKey(period, path);
    let body: unknown;
    try {
      body = (await this.#o.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }))).Body;
    } catch (error) {
      if (isS3NotFound(error)) {
        throw new DestinationNotFoundError(
          `${path} is not a published file of ${safePeriodKey(period)} in ${this.description}`,
        );
      }
      throw toS3DestinationError(error, 'download', `s3://${this.bucket}/${key}`);
    }
    if (!(body instanceof Readable))
      throw toS3DestinationError(
        new Error('the response has no body stream'),
        'download',
        `s3://${this.bucket}/${key}`,
      );
    return body;
  }

  /**
   * A GET URL for a published file that works without credentials for `expiresSeconds` (at most
   * 7 days; also bounded by the lifetime of temporary credentials). Signing is local: whether the
   * object exists is not checked — read the manifest first.
   */
  async presignPublishedFile(period: Period, path: string, expiresSeconds: number): Promise<string> {
    if (!Number.isInteger(expiresSeconds) || expiresSeconds < 1 || expiresSeconds > MAX_PRESIGN_SECONDS) {
      throw new DestinationInvalidError(
        `presigned URL lifetime ${expiresSeconds} s is outside 1..${MAX_PRESIGN_SECONDS}`,
      );
    }
    const key = this.publishedKey(period, path);
    try {
      const signer = this.#o.presignClient ?? this.#o.client;
      return await getSignedUrl(signer, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
        expiresIn: expiresSeconds,
      });
    } catch (error) {
      throw toS3DestinationError(error, 'presigning', `s3://${this.bucket}/${key}`);
    }
  }

  /**
   * Lists one key under the prefix: proves the endpoint answers, the credentials are valid, the
   * bucket exists and may be listed (publishing needs that to remove old versions). It writes
   * nothing, so health checks may call it often; PutObject permission shows at the first export.
   */
  async check(): Promise<void> {
    try {
      await this.#o.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          MaxKeys: 1,
          ...(this.prefix === '' ? {} : { Prefix: `${this.prefix}/` }),
        }),
      );
    } catch (error) {
      throw toS3DestinationError(error, 'check', this.description);
    }
  }

  /** Releases the clients' sockets when this destination created the clients. */
  close(): void {
    if (this.#o.ownsClient !== true) return;
    this.#o.client.destroy();
    this.#o.presignClient?.destroy();
  }
}
