// The S3 group of settings, read when a destination is s3://bucket/prefix: endpoint and region,
// addressing, server-side encryption, part size, the endpoint presigned links are signed for,
// static credentials from *_FILE variables (else the AWS chain), and how many older versions of a
// period a publish keeps.

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { readFileNamedBy } from './read-file-named-by.js';
import { flag, httpUrl, int, VISIBLE_ASCII, visibleAscii } from './variable-schemas.js';

export const s3Variables = {
  endpoint: envVar(
    'S3_ENDPOINT',
    httpUrl.optional(),
    'S3-compatible endpoint URL, e.g. http://127.0.0.1:9000 for MinIO.',
    { docDefault: '(AWS)' },
  ),
  region: envVar(
    'S3_REGION',
    visibleAscii('a region name such as eu-central-1').default('us-east-1'),
    'S3 region.',
  ),
  forcePathStyle: envVar(
    'S3_FORCE_PATH_STYLE',
    flag(false),
    'Use path-style bucket addressing (MinIO and most S3-compatible servers).',
  ),
  sse: envVar(
    'S3_SSE',
    z.enum(['AES256', 'aws:kms']).optional(),
    'Server-side encryption of uploaded objects: AES256 or aws:kms.',
  ),
  sseKmsKeyId: envVar(
    'S3_SSE_KMS_KEY_ID',
    visibleAscii('a KMS key id or ARN').optional(),
    'KMS key id when S3_SSE is aws:kms.',
  ),
  partSizeBytes: envVar(
    'S3_PART_SIZE_MB',
    int(5, 5120, 8).transform((mb) => mb * 1024 * 1024),
    'Multipart upload part size (5..5120 MiB). Memory per file is about 4 parts.',
  ),
  publicEndpoint: envVar(
    'S3_PUBLIC_ENDPOINT',
    httpUrl.optional(),
    "Endpoint the API's presigned download URLs are signed for, when clients reach S3 by another address than S3_ENDPOINT (docker-compose: http://localhost:9000 for minio:9000).",
    { docDefault: '(S3_ENDPOINT)' },
  ),
  /** Resolved with secretAccessKeyFile into `credentials` by loadS3Config. */
  accessKeyIdFile: envVar(
    'S3_ACCESS_KEY_ID_FILE',
    z.string().optional(),
    'File holding the S3 access key id (with S3_SECRET_ACCESS_KEY_FILE); unset, credentials come from the AWS chain (AWS_ACCESS_KEY_ID, profiles, roles).',
  ),
  secretAccessKeyFile: envVar(
    'S3_SECRET_ACCESS_KEY_FILE',
    z.string().optional(),
    'File holding the S3 secret access key (with S3_ACCESS_KEY_ID_FILE); surrounding whitespace is ignored. Never logged.',
  ),
  /** Which older versions of a period a publish deletes (s3-publication.ts). */
  retention: {
    keepVersions: envVar(
      'S3_KEEP_VERSIONS',
      int(2, 1000, 2),
      'Versions of a period kept on S3 after a publish: the new one, the one it replaced (downloads in flight) and the newest others up to this number (at least 2). Older ones are deleted by the next publish of the period.',
    ),
    minAgeMs: envVar(
      'S3_KEEP_MIN_AGE_MINUTES',
      int(0, 525_600, 60).transform((minutes) => minutes * 60_000),
      'A version beyond S3_KEEP_VERSIONS is deleted only once its newest file is this many minutes older than the new manifest: another worker may still be writing it.',
    ),
  },
};

/** Static S3 credentials read from the *_FILE variables; otherwise the AWS chain applies. */
export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export type S3Config = Omit<Loaded<typeof s3Variables>, 'accessKeyIdFile' | 'secretAccessKeyFile'> & {
  readonly credentials?: S3Credentials | undefined;
};

export function loadS3Config(env: Env): S3Config {
  const { accessKeyIdFile, secretAccessKeyFile, ...config } = loadDeclared(env, s3Variables);
  if ((accessKeyIdFile === undefined) !== (secretAccessKeyFile === undefined)) {
    const [set, unset] =
      accessKeyIdFile === undefined
        ? ['S3_SECRET_ACCESS_KEY_FILE', 'S3_ACCESS_KEY_ID_FILE']
        : ['S3_ACCESS_KEY_ID_FILE', 'S3_SECRET_ACCESS_KEY_FILE'];
    throw new ConfigError(`${set} is set without ${unset}: the two go together`, { variable: set });
  }
  if (accessKeyIdFile === undefined || secretAccessKeyFile === undefined) return Object.freeze(config);
  const credentials = Object.freeze({
    accessKeyId: readVisibleSecretFile(accessKeyIdFile, 'S3_ACCESS_KEY_ID_FILE'),
    secretAccessKey: readVisibleSecretFile(secretAccessKeyFile, 'S3_SECRET_ACCESS_KEY_FILE'),
  });
  return Object.freeze({ ...config, credentials });
}

/** A secret file's text that must be one printable-ASCII word (a key, a token). */
function readVisibleSecretFile(path: string, variable: string): string {
  const text = readFileNamedBy(variable, path);
  if (!VISIBLE_ASCII.test(text)) {
    throw new ConfigError(
      `${variable} holds a line break, space or other character outside printable ASCII (only surrounding whitespace is ignored)`,
      { variable },
    );
  }
  return text;
}
