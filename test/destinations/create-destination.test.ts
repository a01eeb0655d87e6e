import { describe, expect, it } from 'vitest';
import type { S3Config } from '../../src/config/s3-config.js';
import { createDestination } from '../../src/destinations/create-destination.js';
import { LocalFolderDestination } from '../../src/destinations/local-folder-destination.js';
import { S3Destination } from '../../src/destinations/s3-destination.js';
import { silentLogger } from '../../src/logger.js';

const s3Config: S3Config = {
  endpoint: 'http://127.0.0.1:9000',
  region: 'eu-central-1',
  forcePathStyle: true,
  sse: undefined,
  sseKmsKeyId: undefined,
  publicEndpoint: undefined,
  partSizeBytes: 8 * 1024 * 1024,
  retention: { keepVersions: 2, minAgeMs: 3_600_000 },
};

describe('createDestination', () => {
  it('makes a local folder destination without reading the S3 settings', async () => {
    const dest = await createDestination(
      '/srv/exports',
      () => {
        throw new Error('S3 settings read for a local destination');
      },
      silentLogger,
    );
    expect(dest).toBeInstanceOf(LocalFolderDestination);
    expect(dest.description).toBe('/srv/exports');
  });

  it('makes an S3 destination for s3://bucket/prefix', async () => {
    const dest = await createDestination('s3://exports-bucket/shift/exports/', s3Config, silentLogger);
    expect(dest).toBeInstanceOf(S3Destination);
    expect(dest.description).toBe('s3://exports-bucket/shift/exports');
    if (dest instanceof S3Destination) dest.close();
  });

  it('refuses a KMS key id without aws:kms encryption, and a destination with ".."', async () => {
    await expect(
      createDestination('s3://b-1/x', { ...s3Config, sseKmsKeyId: 'alias/k' }, silentLogger),
    ).rejects.toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    await expect(createDestination('s3://b-1/../x', s3Config, silentLogger)).rejects.toThrow(
      expect.objectContaining({ code: 'DEST_INVALID' }),
    );
  });
});
