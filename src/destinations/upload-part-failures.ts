// Tells an upload at once when one of its UploadPart requests has failed for good (after the SDK's
// retries). lib-storage runs several part uploaders over one body; when one fails, the others go on
// reading and uploading the rest of the body, and only after the whole file has gone up does done()
// reject and the multipart upload get aborted — gigabytes later, and with the original error
// replaced when that abort fails too. With this hook the upload destroys its body with the part's
// error right away: the other uploaders stop, the producer's next write fails, and the original
// error is the one reported.

import type { S3Client } from '@aws-sdk/client-s3';

type Listener = (error: Error) => void;

const registries = new WeakMap<S3Client, Map<string, Listener>>();

function registryOf(client: S3Client): Map<string, Listener> {
  let registry = registries.get(client);
  if (registry !== undefined) return registry;
  const listeners = new Map<string, Listener>();
  registry = listeners;
  registries.set(client, listeners);
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const input = args.input as {
          Bucket?: unknown;
          Key?: unknown;
          UploadId?: unknown;
          PartNumber?: unknown;
        };
        if (input.UploadId !== undefined && input.PartNumber !== undefined) {
          listeners.get(`${String(input.Bucket)}/${String(input.Key)}`)?.(
            error instanceof Error ? error : new Error(String(error)),
          );
        }
        throw error;
      }
    },
    // initialize: outside the retry middleware, so only the final failure is seen.
    { step: 'initialize', name: 'shiftExportUploadPartFailures' },
  );
  return registry;
}

/** Calls `listener` when an UploadPart of bucket/key fails; returns the function that stops watching. */
export function watchUploadPartFailures(
  client: S3Client,
  bucket: string,
  key: string,
  listener: Listener,
): () => void {
  const registry = registryOf(client);
  const id = `${bucket}/${key}`;
  registry.set(id, listener);
  return () => {
    if (registry.get(id) === listener) registry.delete(id);
  };
}
