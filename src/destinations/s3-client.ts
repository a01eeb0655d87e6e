// The S3 client of every S3 destination. Credentials come from the AWS default chain (environment,
// shared files, SSO, container/instance roles): none are passed here, so none can leak from here
// into logs or errors.

import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.js';

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
