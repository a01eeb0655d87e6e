// The S3 client of every S3 destination. Credentials come from S3_ACCESS_KEY_ID_FILE and
// S3_SECRET_ACCESS_KEY_FILE when set (compose and Kubernetes secrets), else from the AWS default
// chain (environment, shared files, SSO, container/instance roles). They go into the SDK and
// nowhere else, so none can leak from here into logs or errors.

import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { S3Config } from '../config/s3-config.js';

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
    // A copy: the SDK marks the object it is given (credentials.$source), and the config is frozen.
    ...(config.credentials === undefined ? {} : { credentials: { ...config.credentials } }),
    ...overrides,
  });
}

/**
 * The client presigned URLs are signed with: one for S3_PUBLIC_ENDPOINT when set (the address
 * clients outside the S3 network use; SigV4 signs the host), else undefined (sign with `client`).
 */
export function createPresignClient(config: S3Config): S3Client | undefined {
  if (config.publicEndpoint === undefined) return undefined;
  return createS3Client({ ...config, endpoint: config.publicEndpoint });
}
