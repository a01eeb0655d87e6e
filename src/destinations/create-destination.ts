// Turns `--dest` / EXPORT_DEST into a Destination: a LocalFolderDestination, or an S3Destination
// with a client built from the S3 settings (s3-client.ts). The S3 modules are loaded only for
// an s3:// destination: the AWS SDK would cost a local export memory and start-up time.

import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config/s3-config.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Destination } from './destination.js';
import { LocalFolderDestination } from './local-folder-destination.js';
import { parseDestination, type ParsedDestination } from '../destination-address.js';
import type { S3Destination } from './s3-destination.js';

export interface CreateDestinationOptions {
  /** Use this client instead of one built from the config (tests, shared clients). */
  readonly s3Client?: S3Client;
  readonly staleVersionAgeMs?: number;
  /**
   * The roots a local folder must stay inside (allowed-destination.ts), checked again when an
   * export begins and right before it publishes, in case a symlink was planted meanwhile.
   */
  readonly roots?: readonly ParsedDestination[];
}

export type AnyDestination = LocalFolderDestination | S3Destination;

/**
 * `s3Config` may be a function, called only for an s3:// destination: a local export then does not
 * fail over a malformed S3 variable it would never use.
 */
export async function createDestination(
  text: string,
  s3Config: S3Config | (() => S3Config),
  logger: Logger,
  options: CreateDestinationOptions = {},
): Promise<Destination & AnyDestination> {
  const parsed = parseDestination(text);
  const stale =
    options.staleVersionAgeMs === undefined ? {} : { staleVersionAgeMs: options.staleVersionAgeMs };
  if (parsed.kind === 'local') {
    const roots = options.roots === undefined ? {} : { roots: options.roots };
    return new LocalFolderDestination({ dir: parsed.dir, logger, ...stale, ...roots });
  }
  const config = typeof s3Config === 'function' ? s3Config() : s3Config;
  if (config.sseKmsKeyId !== undefined && config.sse !== 'aws:kms') {
    throw new ConfigError('S3_SSE_KMS_KEY_ID is set but S3_SSE is not aws:kms', {
      variable: 'S3_SSE_KMS_KEY_ID',
    });
  }
  const [{ S3Destination }, { createS3Client, createPresignClient }] = await Promise.all([
    import('./s3-destination.js'),
    import('./s3-client.js'),
  ]);
  return new S3Destination({
    client: options.s3Client ?? createS3Client(config),
    presignClient: options.s3Client === undefined ? createPresignClient(config) : undefined,
    ownsClient: options.s3Client === undefined,
    bucket: parsed.bucket,
    prefix: parsed.prefix,
    sse: config.sse,
    sseKmsKeyId: config.sseKmsKeyId,
    partSizeBytes: config.partSizeBytes,
    logger,
    keepVersions: config.retention.keepVersions,
    staleVersionAgeMs: options.staleVersionAgeMs ?? config.retention.minAgeMs,
  });
}
