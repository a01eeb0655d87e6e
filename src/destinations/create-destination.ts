// Turns `--dest` / EXPORT_DEST into a Destination: a LocalFolderDestination, or an S3Destination
// with a client built from the S3 config slice. Credentials come from the AWS default chain
// (environment, shared files, SSO, container/instance roles): none are passed here, so none can
// leak from here into logs or errors.

import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Destination } from './destination.js';
import { LocalFolderDestination } from './local-folder-destination.js';
import { parseDestination } from './parse-destination.js';
import { S3Destination } from './s3-destination.js';

/** An S3 client for `config`. `overrides` is for tests (explicit credentials, fewer retries). */
export function createS3Client(config: S3Config, overrides: Partial<S3ClientConfig> = {}): S3Client {
  return new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    // S3-compatible servers (MinIO, Ceph...) often reject the SDK's default flexible checksums
    // (on since v3.729): compute and validate checksums only where the API requires them.
    ...(config.endpoint === undefined
      ? {}
      : {
          endpoint: config.endpoint,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }),
    // Without timeouts a silent endpoint hangs an export forever; requestTimeout is per socket idle period.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
    ...overrides,
  });
}

export interface CreateDestinationOptions {
  /** Use this client instead of one built from the config (tests, shared clients). */
  readonly s3Client?: S3Client;
  readonly staleVersionAgeMs?: number;
}

export type AnyDestination = LocalFolderDestination | S3Destination;

/**
 * `s3Config` may be a function, called only for an s3:// destination: a local export then does not
 * fail over a malformed S3 variable it would never use.
 */
export function createDestination(
  text: string,
  s3Config: S3Config | (() => S3Config),
  logger: Logger,
  options: CreateDestinationOptions = {},
): Destination & AnyDestination {
  const parsed = parseDestination(text);
  const stale =
    options.staleVersionAgeMs === undefined ? {} : { staleVersionAgeMs: options.staleVersionAgeMs };
  if (parsed.kind === 'local') return new LocalFolderDestination({ dir: parsed.dir, logger, ...stale });
  const config = typeof s3Config === 'function' ? s3Config() : s3Config;
  if (config.sseKmsKeyId !== undefined && config.sse !== 'aws:kms') {
    throw new ConfigError('S3_SSE_KMS_KEY_ID is set but S3_SSE is not aws:kms', {
      variable: 'S3_SSE_KMS_KEY_ID',
    });
  }
  return new S3Destination({
    client: options.s3Client ?? createS3Client(config),
    ownsClient: options.s3Client === undefined,
    bucket: parsed.bucket,
    prefix: parsed.prefix,
    sse: config.sse,
    sseKmsKeyId: config.sseKmsKeyId,
    partSizeBytes: config.partSizeBytes,
    logger,
    ...stale,
  });
}
