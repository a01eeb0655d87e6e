// Bulk object chores of the S3 destination: list every object under a prefix (ListObjectsV2 with
// paging), delete many keys (DeleteObjects, 1,000 per request, per-key errors reported), and abort
// multipart uploads left open under a prefix (ListMultipartUploads with paging).

import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';

export interface ListedObject {
  readonly key: string;
  readonly lastModified: Date | undefined;
}

export async function* listObjects(
  client: S3Client,
  bucket: string,
  prefix: string,
): AsyncGenerator<ListedObject> {
  let continuationToken: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ...(continuationToken === undefined ? {} : { ContinuationToken: continuationToken }),
      }),
    );
    for (const object of page.Contents ?? []) {
      if (object.Key !== undefined) yield { key: object.Key, lastModified: object.LastModified };
    }
    continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (continuationToken !== undefined);
}

const DELETE_BATCH = 1000;

/** Deletes `keys`; throws when S3 reports a key it could not delete. */
export async function deleteObjects(
  client: S3Client,
  bucket: string,
  keys: readonly string[],
): Promise<void> {
  for (let start = 0; start < keys.length; start += DELETE_BATCH) {
    const batch = keys.slice(start, start + DELETE_BATCH);
    const result = await client.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    const failed = result.Errors ?? [];
    if (failed.length > 0) {
      const first = failed[0];
      throw Object.assign(
        new Error(
          `could not delete ${failed.length} object(s), e.g. ${first?.Key ?? '?'}: ${first?.Message ?? ''}`,
        ),
        {
          name: first?.Code ?? 'DeleteObjectsError',
        },
      );
    }
  }
}

/**
 * Aborts the multipart uploads still open under `prefix` and returns how many there were. Servers
 * without ListMultipartUploads answer with an empty list, which is fine: this is the second line
 * of defence after lib-storage's own abort.
 */
export async function abortOpenUploads(client: S3Client, bucket: string, prefix: string): Promise<number> {
  let aborted = 0;
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListMultipartUploadsCommand({
        Bucket: bucket,
        Prefix: prefix,
        ...(keyMarker === undefined ? {} : { KeyMarker: keyMarker }),
        ...(uploadIdMarker === undefined ? {} : { UploadIdMarker: uploadIdMarker }),
      }),
    );
    for (const upload of page.Uploads ?? []) {
      if (upload.Key === undefined || upload.UploadId === undefined) continue;
      await client.send(
        new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
      );
      aborted += 1;
    }
    if (page.IsTruncated !== true) return aborted;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
    if (keyMarker === undefined && uploadIdMarker === undefined) return aborted;
  }
}
