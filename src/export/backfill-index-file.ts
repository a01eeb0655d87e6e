// Writes a backfill's index file at the root of its destination, beside the period folders:
// `<dest>/backfill-<from>_<to>.json`. A Destination publishes exports of periods and has no place
// for a file of its own, so this writes directly — into a local folder through a temporary file and
// rename() (readers never see half a file), or to S3 with one PutObject (atomic by nature).

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Config } from '../config/s3-config.js';
import { createS3Client } from '../destinations/s3-client.js';
import { toLocalDestinationError, toS3DestinationError } from '../destinations/destination-errors.js';
import { parseDestination } from '../destination-address.js';
import { periodKey, type Period } from '../domain/period.js';

export function backfillIndexName(period: Period): string {
  return `backfill-${periodKey(period)}.json`;
}

/** Stores `json` as the index of `period` at `destText`; resolves with where it is. */
export async function writeBackfillIndex(
  destText: string,
  period: Period,
  json: string,
  s3Config: () => S3Config,
): Promise<string> {
  const name = backfillIndexName(period);
  const parsed = parseDestination(destText);
  if (parsed.kind === 'local') {
    const target = join(parsed.dir, name);
    const temp = join(parsed.dir, `.${name}.${randomUUID()}.tmp`);
    try {
      await mkdir(parsed.dir, { recursive: true });
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(json, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw toLocalDestinationError(error, 'write the backfill index', target);
    }
    return target;
  }
  const key = parsed.prefix === '' ? name : `${parsed.prefix}/${name}`;
  const client = createS3Client(s3Config());
  try {
    await client.send(
      new PutObjectCommand({
        Bucket: parsed.bucket,
        Key: key,
        Body: json,
        ContentType: 'application/json; charset=utf-8',
      }),
    );
  } catch (error) {
    throw toS3DestinationError(error, 'upload of the backfill index', `s3://${parsed.bucket}/${key}`);
  } finally {
    client.destroy();
  }
  return `s3://${parsed.bucket}/${key}`;
}
