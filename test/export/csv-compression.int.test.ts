// CSV_COMPRESSION=gzip through ConfiguredExport, the assembly `run`, `demo` and the worker share: the
// same period exported plain and gzip-compressed, into a folder and into S3 (an S3-compatible
// server in this process). Every `.csv.gz` decompresses to the bytes of its plain twin, the
// manifest lists the compressed bytes, and the object is uploaded as gzip-encoded text/csv.

import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportResult } from '../../src/export/run-export.js';
import type { Manifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { runConfiguredExport } from '../support/run-configured-export.js';

const PERIOD = { from: '2024-03-28', to: '2024-03-30' };
const CSV_FILES = [
  'shifts.csv',
  'rejected.csv',
  'summary_by_division.csv',
  'summary_by_day.csv',
  'summary_by_region.csv',
  'summary_by_shop.csv',
  'summary_by_user.csv',
];

let sandbox: RunningSandbox;
let s3: TestS3Server;
let work: string;

beforeAll(async () => {
  [sandbox, s3] = await Promise.all([
    startTestSandbox({ rows: 1500, faults: { wfm_timers: { invalidRowRate: 0.02 } } }),
    startTestS3Server(),
  ]);
  // The S3 client takes credentials from the AWS default chain, i.e. this process's environment.
  process.env['AWS_ACCESS_KEY_ID'] = s3.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = s3.secretAccessKey;
  work = mkdtempSync(join(tmpdir(), 'csv-compression-'));
});

afterAll(async () => {
  await s3?.cleanup();
  await Promise.all([sandbox?.close(), s3?.stop()]);
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

async function exportTo(dest: string, settings: Record<string, string>): Promise<ExportResult> {
  const env = {
    EXPORT_DEST: dest,
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: SANDBOX_READER_TOKEN,
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    ...settings,
  };
  return (await runConfiguredExport(env, PERIOD, ['csv'])).result;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function fileOf(manifest: Manifest, name: string): Manifest['files'][number] {
  const file = manifest.files.find((f) => f.name === name);
  if (file === undefined) throw new Error(`the manifest lists no ${name}`);
  return file;
}

describe('CSV_COMPRESSION=gzip', () => {
  let plain: ExportResult;

  beforeAll(async () => {
    plain = await exportTo(join(work, 'plain'), {});
  });

  it('writes each CSV file as .csv.gz into a folder: the plain bytes once decompressed', async () => {
    const gzip = await exportTo(join(work, 'gzip'), { CSV_COMPRESSION: 'gzip', CSV_DELIMITER: ';' });
    const semicolons = await exportTo(join(work, 'semicolons'), { CSV_DELIMITER: ';' });
    expect(gzip.manifest.files.map((f) => f.name).sort()).toEqual(
      [...CSV_FILES.map((name) => `${name}.gz`), 'row-hashes.bin'].sort(),
    );
    for (const name of CSV_FILES) {
      const file = fileOf(gzip.manifest, `${name}.gz`);
      const stored = readFileSync(join(gzip.location, file.path));
      expect(file, name).toMatchObject({
        path: `${name}.gz`,
        bytes: stored.length,
        sha256: sha256(stored),
        rows: fileOf(semicolons.manifest, name).rows,
        content_type: 'text/csv; charset=utf-8',
        content_encoding: 'gzip',
      });
      expect(stored.subarray(0, 2).toString('hex'), name).toBe('1f8b');
      const original = readFileSync(join(semicolons.location, fileOf(semicolons.manifest, name).path));
      expect(gunzipSync(stored).equals(original), name).toBe(true);
    }
    // Compression is all that differs: the plain export lists no encoding.
    expect(fileOf(plain.manifest, 'shifts.csv')).not.toHaveProperty('content_encoding');
    const shifts = fileOf(gzip.manifest, 'shifts.csv.gz');
    expect(shifts.bytes).toBeLessThan(fileOf(semicolons.manifest, 'shifts.csv').bytes / 3);
  });

  it('uploads .csv.gz objects to S3 with Content-Encoding gzip and Content-Type text/csv', async () => {
    const bucket = await s3.createBucket();
    const result = await exportTo(`s3://${bucket}/exports`, { CSV_COMPRESSION: 'gzip' });
    const client = s3.client();
    const prefix = `exports/${PERIOD.from}_${PERIOD.to}`;
    try {
      for (const name of CSV_FILES) {
        const file = fileOf(result.manifest, `${name}.gz`);
        const key = `${prefix}/${file.path}`;
        const uploads = s3.requests.filter(
          (r) => r.key === key && (r.operation === 'PutObject' || r.operation === 'CreateMultipartUpload'),
        );
        expect(
          uploads.map((r) => r.headers['content-encoding']),
          name,
        ).toEqual(['gzip']);
        expect(
          uploads.map((r) => r.headers['content-type']),
          name,
        ).toEqual(['text/csv; charset=utf-8']);
        // fauxqs keeps an object's Content-Type but not its Content-Encoding: the encoding is checked
        // on the request that created the object, above.
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        expect(head.ContentType, name).toBe('text/csv; charset=utf-8');
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const stored = Buffer.from(await object.Body!.transformToByteArray());
        expect([stored.length, sha256(stored)], name).toEqual([file.bytes, file.sha256]);
        const original = readFileSync(join(plain.location, fileOf(plain.manifest, name).path));
        expect(gunzipSync(stored).equals(original), name).toBe(true);
      }
    } finally {
      client.destroy();
    }
  });
});
