// One file of an S3 export, streamed into an @aws-sdk/lib-storage Upload as it is produced: the
// producer writes into a HashingStream that is itself the upload's Body (no temporary copy), so the
// StoredFile's bytes and sha256 are those of exactly what was uploaded. Bodies up to one part go up
// as one PutObject, longer ones as a multipart upload with parts of partSizeBytes (memory: about
// queueSize parts per file).

import type { ServerSideEncryption, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StoredFile } from './destination.js';
import { toS3DestinationError } from './destination-errors.js';
import { HashingStream } from './hashing-stream.js';
import { watchUploadPartFailures } from './upload-part-failures.js';

/** ServerSideEncryption / SSEKMSKeyId as PutObject and CreateMultipartUpload take them. */
export interface SseParams {
  readonly ServerSideEncryption?: ServerSideEncryption;
  readonly SSEKMSKeyId?: string;
}

export interface S3FileUploadOptions {
  readonly client: S3Client;
  readonly bucket: string;
  readonly key: string;
  readonly name: string;
  /** StoredFile.path: relative to the folder of manifest.json. */
  readonly path: string;
  readonly contentType: string;
  /** The object's Content-Encoding (`gzip` for a `.csv.gz`); none when absent. */
  readonly contentEncoding?: string;
  readonly contentDisposition: string;
  /** User metadata of the object (x-amz-meta-*): the export id that proves it ours. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly sse: SseParams;
  readonly partSizeBytes: number;
  readonly queueSize: number;
}

export interface S3FileUpload {
  readonly name: string;
  readonly key: string;
  readonly stream: HashingStream;
  /** Settles once the object is stored (or the upload failed and its multipart upload was aborted). */
  readonly done: Promise<StoredFile>;
  /** Stops the upload with `error`; its multipart upload is aborted. No effect once the body ended. */
  stop(error: Error): void;
}

export function startS3FileUpload(options: S3FileUploadOptions): S3FileUpload {
  const { client, bucket, key, name } = options;
  const stream = new HashingStream();
  // The first error wins: when aborting the multipart upload fails too, lib-storage rejects with
  // that later error, which says nothing about why the upload stopped.
  let firstError: unknown;
  stream.on('error', (error) => {
    firstError ??= error;
  });
  const stop = (error: Error): void => {
    firstError ??= error;
    stream.destroy(error);
  };
  const location = `s3://${bucket}/${key}`;
  // Typed before it reaches the producer: its pipeline then fails with DEST_S3 and the right
  // retryability, not with a raw SDK error.
  const unwatch = watchUploadPartFailures(client, bucket, key, (error) =>
    stop(toS3DestinationError(error, `upload of ${name}`, location)),
  );
  const upload = new Upload({
    client,
    params: {
      Bucket: bucket,
      Key: key,
      Body: stream,
      ContentType: options.contentType,
      ...(options.contentEncoding === undefined ? {} : { ContentEncoding: options.contentEncoding }),
      ContentDisposition: options.contentDisposition,
      Metadata: { ...options.metadata },
      ...options.sse,
    },
    partSize: options.partSizeBytes,
    queueSize: options.queueSize,
    leavePartsOnError: false,
  });
  // done() is started before anything is written: the body is read as it is produced.
  const done = upload
    .done()
    .then(
      (): StoredFile => ({ name, path: options.path, ...stream.digest() }),
      (error: unknown) => {
        throw toS3DestinationError(firstError ?? error, `upload of ${name}`, location);
      },
    )
    .finally(unwatch);
  // Rejections are reported through done() and publish(); never as unhandled.
  done.catch(() => undefined);
  return { name, key, stream, done, stop };
}
