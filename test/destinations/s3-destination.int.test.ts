import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_TYPES } from '../../src/destinations/content-headers.js';
import { HashingStream } from '../../src/destinations/hashing-stream.js';
import type { StoredFile } from '../../src/destinations/destination.js';
import { loadS3Config, type S3Config } from '../../src/config/s3-config.js';
import { createDestination } from '../../src/destinations/create-destination.js';
import { listObjects } from '../../src/destinations/s3-objects.js';
import { S3Destination, type S3DestinationOptions } from '../../src/destinations/s3-destination.js';
import type { Period } from '../../src/domain/period.js';
import { ShiftExportError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { capturingLogger, MiB, readAll, runExport, sha256, testBytes, writeAll } from './export-helpers.js';

const period: Period = { from: '2024-05-01', to: '2024-05-07' };
const base = 'exports/2024-05-01_2024-05-07';

let server: TestS3Server;
let client: S3Client;
let bucket: string;

beforeAll(async () => {
  server = await startTestS3Server();
  client = server.client();
});

afterAll(async () => {
  await server.stop();
});

beforeEach(async () => {
  bucket = await server.createBucket();
});

afterEach(async () => {
  await server.cleanup();
});

function destination(options: Partial<S3DestinationOptions> = {}): S3Destination {
  return new S3Destination({ client, bucket, prefix: 'exports', partSizeBytes: 5 * MiB, ...options });
}

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of listObjects(client, bucket, prefix)) keys.push(object.key);
  return keys.sort();
}

async function download(key: string): Promise<Buffer> {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
}

async function rejection(promise: Promise<unknown>): Promise<ShiftExportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ShiftExportError))
    throw new Error(`expected a ShiftExportError, got ${String(error)}`);
  return error;
}

/** A TCP port on 127.0.0.1 that forwards every connection to `target`. */
async function startTcpProxy(target: URL): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = createServer((inbound) => {
    const outbound = connect({ host: target.hostname, port: Number(target.port) });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}

/** Proves a published export is complete and intact: every file's bytes and hash, via the manifest. */
async function expectIntact(dest: S3Destination, expected: Readonly<Record<string, Buffer>>): Promise<void> {
  const manifest = JSON.parse((await dest.readManifest(period)) ?? 'null') as { files: StoredFile[] };
  expect(manifest.files.map((f) => f.name).sort()).toEqual(Object.keys(expected).sort());
  for (const file of manifest.files) {
    const bytes = await readAll(await dest.openPublishedFile(period, file.path));
    expect(bytes.equals(expected[file.name] ?? Buffer.alloc(0))).toBe(true);
    expect(sha256(bytes)).toBe(file.sha256);
    expect(bytes.length).toBe(file.bytes);
  }
}

const firstFiles = {
  'shifts.csv': testBytes(12 * MiB, 1),
  'summary_by_division.csv': testBytes(3000, 2),
  'shifts.xlsx': testBytes(200_000, 3),
};

describe('S3Destination', () => {
  it('stores every file under a version prefix and the manifest last, with the hashes of the stored bytes', async () => {
    const dest = destination();
    const run = await runExport(dest, period, 'v1', firstFiles);

    expect(await keysUnder(`${base}/`)).toEqual([
      `${base}/manifest.json`,
      `${base}/v1/shifts.csv`,
      `${base}/v1/shifts.xlsx`,
      `${base}/v1/summary_by_division.csv`,
    ]);
    expect(run.published).toEqual({
      location: `s3://${bucket}/${base}/`,
      manifestLocation: `s3://${bucket}/${base}/manifest.json`,
    });
    for (const file of run.stored) {
      expect(file.path).toBe(`v1/${file.name}`);
      const stored = await download(`${base}/${file.path}`);
      expect(stored.length).toBe(file.bytes);
      expect(sha256(stored)).toBe(file.sha256);
      expect(stored.equals(firstFiles[file.name as keyof typeof firstFiles])).toBe(true);
    }
    expect(await dest.readManifest(period)).toBe(run.manifestJson);

    // The 12 MiB file went up as a real multipart upload of 5 + 5 + 2 MiB; the small ones as one PUT each.
    const mine = server.requests.filter((r) => r.bucket === bucket);
    const parts = mine.filter((r) => r.operation === 'UploadPart' && r.key.endsWith('/shifts.csv'));
    expect(parts.map((r) => r.query['partNumber']).sort()).toEqual(['1', '2', '3']);
    expect(mine.filter((r) => r.operation === 'CompleteMultipartUpload')).toHaveLength(1);

    // Server-side order: the manifest PUT arrived after every file's last request was answered.
    const manifestPut = mine.find((r) => r.operation === 'PutObject' && r.key === `${base}/manifest.json`);
    const fileWrites = mine.filter(
      (r) =>
        r.key.startsWith(`${base}/v1/`) && ['PutObject', 'CompleteMultipartUpload'].includes(r.operation),
    );
    expect(fileWrites).toHaveLength(3);
    expect(manifestPut?.arrived).toBeGreaterThan(Math.max(...fileWrites.map((r) => r.answered)));
    expect(manifestPut?.headers['x-amz-meta-export-id']).toBe('v1');
    expect(server.openUploads(bucket)).toEqual([]);
  });

  it('gives each object its Content-Type and a Content-Disposition naming the download after the period', async () => {
    await runExport(destination(), period, 'v1', firstFiles);
    const creations = server.requests.filter(
      (r) => r.bucket === bucket && (r.operation === 'PutObject' || r.operation === 'CreateMultipartUpload'),
    );
    const byName = new Map(creations.map((r) => [r.key.slice(r.key.lastIndexOf('/') + 1), r.headers]));
    expect(byName.get('shifts.csv')?.['content-type']).toBe(CONTENT_TYPES.csv);
    expect(byName.get('shifts.xlsx')?.['content-type']).toBe(CONTENT_TYPES.xlsx);
    expect(byName.get('manifest.json')?.['content-type']).toBe(CONTENT_TYPES.json);
    expect(byName.get('shifts.xlsx')?.['content-disposition']).toBe(
      `attachment; filename="2024-05-01_2024-05-07_shifts.xlsx"; filename*=UTF-8''2024-05-01_2024-05-07_shifts.xlsx`,
    );
    expect(byName.get('manifest.json')?.['cache-control']).toBe('no-cache');
    // fauxqs keeps Content-Type (not Content-Disposition): what a download gets back.
    const head = await client.send(
      new GetObjectCommand({ Bucket: bucket, Key: `${base}/v1/summary_by_division.csv` }),
    );
    await head.Body?.transformToByteArray();
    expect(head.ContentType).toBe(CONTENT_TYPES.csv);
  });

  it('asks for server-side encryption with the KMS key on every object when S3_SSE is aws:kms', async () => {
    await runExport(destination({ sse: 'aws:kms', sseKmsKeyId: 'alias/exports' }), period, 'v1', firstFiles);
    const creations = server.requests.filter(
      (r) => r.bucket === bucket && (r.operation === 'PutObject' || r.operation === 'CreateMultipartUpload'),
    );
    expect(creations).toHaveLength(4);
    for (const r of creations) {
      expect(r.headers['x-amz-server-side-encryption']).toBe('aws:kms');
      expect(r.headers['x-amz-server-side-encryption-aws-kms-key-id']).toBe('alias/exports');
    }
  });

  it('leaves the earlier export intact and no upload open when a file fails in the middle of its upload', async () => {
    const dest = destination();
    const first = await runExport(dest, period, 'v1', firstFiles);

    const publication = await dest.begin(period, 'v2');
    const csv = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(csv.stream, testBytes(6 * MiB, 4));
    await csv.done();
    const xlsx = publication.openFile('shifts.xlsx', CONTENT_TYPES.xlsx);
    xlsx.stream.write(testBytes(7 * MiB, 5));
    // Wait, server-side, until a part of the half-written file is stored; then the renderer crashes.
    await server.waitFor(
      (r) => r.operation === 'UploadPart' && r.key === `${base}/v2/shifts.xlsx` && r.status === 200,
    );
    xlsx.stream.destroy(new Error('the renderer crashed'));

    const failed = await rejection(xlsx.done());
    expect(failed.code).toBe('DEST_S3');
    expect(failed.message).toContain('the renderer crashed');
    await publication.abort(failed);
    await expect(publication.publish('{}')).rejects.toBe(failed);

    const mine = server.requests.filter((r) => r.bucket === bucket);
    const xlsxUpload = mine.find(
      (r) => r.operation === 'CreateMultipartUpload' && r.key === `${base}/v2/shifts.xlsx`,
    );
    expect(
      mine.some(
        (r) =>
          r.operation === 'AbortMultipartUpload' && r.uploadId === xlsxUpload?.uploadId && r.status === 204,
      ),
    ).toBe(true);
    expect(server.openUploads(bucket)).toEqual([]);
    expect((await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).toEqual(
      [],
    );
    expect(mine.filter((r) => r.operation === 'PutObject' && r.key.endsWith('manifest.json'))).toHaveLength(
      1,
    );
    // The finished file of the failed version is gone too.
    expect(await keysUnder(`${base}/v2/`)).toEqual([]);
    expect(await dest.readManifest(period)).toBe(first.manifestJson);
    await expectIntact(dest, firstFiles);
  });

  it('stops a file at once when S3 fails one of its parts, and fails the export cleanly', async () => {
    // One attempt per request: with SDK retries the part would fail only after a backoff, during
    // which the other part uploader goes on, and the bound below would depend on the machine's speed.
    const failing = server.client({ maxAttempts: 1 });
    const dest = destination({ client: failing, queueSize: 2 });
    await runExport(dest, period, 'v1', { 'summary_by_user.csv': testBytes(1000, 6) });
    server.failRequests(
      (r) =>
        r.operation === 'UploadPart' && r.key === `${base}/v2/shifts.csv` && r.query['partNumber'] === '2',
      {
        status: 500,
        code: 'InternalError',
        message: 'We encountered an internal error. Please try again.',
      },
    );

    const publication = await dest.begin(period, 'v2');
    const other = publication.openFile('summary_by_user.csv', CONTENT_TYPES.csv);
    const csv = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    const total = 60 * MiB;
    const writing = writeAll(csv.stream, testBytes(total, 7));
    // The producer's pipeline fails with the typed error, long before the 60 MiB are written.
    const producerError = await rejection(writing);
    expect(producerError.code).toBe('DEST_S3');

    const failed = await rejection(csv.done());
    expect(failed).toBe(producerError);
    expect(failed.retryable).toBe(true);
    expect(failed.message).toContain('InternalError');
    // The other file of the export is stopped as well, with the same cause.
    expect((await rejection(other.done())).message).toContain('InternalError');
    await publication.abort(failed);

    const parts = new Set(
      server.requests
        .filter((r) => r.operation === 'UploadPart' && r.key === `${base}/v2/shifts.csv`)
        .map((r) => r.query['partNumber']),
    );
    // Far from the 12 parts of the whole body: the rest was never read nor sent.
    expect(parts.size).toBeLessThan(8);
    expect(csv.stream instanceof HashingStream && csv.stream.bytesSeen).toBeLessThan(total / 2);
    expect(server.openUploads(bucket)).toEqual([]);
    expect(await keysUnder(`${base}/v2/`)).toEqual([]);
    await expectIntact(dest, { 'summary_by_user.csv': testBytes(1000, 6) });
  });

  it('reports the original error and still closes the multipart upload when aborting it fails', async () => {
    const dest = destination({ client: server.client({ maxAttempts: 2 }) });
    // lib-storage's own abort gets 500 on both attempts; the cleanup's second abort gets through.
    server.failRequests((r) => r.operation === 'AbortMultipartUpload', {
      status: 500,
      code: 'InternalError',
      times: 2,
    });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    sink.stream.write(testBytes(7 * MiB, 1));
    await server.waitFor((r) => r.operation === 'UploadPart' && r.status === 200 && r.bucket === bucket);
    sink.stream.destroy(new Error('the renderer crashed'));

    const failed = await rejection(sink.done());
    expect(failed.message).toContain('the renderer crashed');
    expect(failed.message).not.toContain('InternalError');
    await publication.abort(failed);
    const aborts = server.requests.filter(
      (r) => r.bucket === bucket && r.operation === 'AbortMultipartUpload',
    );
    expect(aborts.map((r) => r.status)).toEqual([500, 500, 204]);
    expect(server.openUploads(bucket)).toEqual([]);
    expect(await keysUnder(`${base}/`)).toEqual([]);
  });

  it('keeps the published export and removes the new files when the manifest cannot be stored', async () => {
    const dest = destination();
    const first = await runExport(dest, period, 'v1', firstFiles);
    server.failRequests((r) => r.operation === 'PutObject' && r.key === `${base}/manifest.json`, {
      status: 403,
      code: 'AccessDenied',
      message: 'Access Denied',
    });
    const error = await rejection(runExport(dest, period, 'v2', { 'shifts.csv': testBytes(1000, 8) }));
    expect(error.code).toBe('DEST_S3');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('AccessDenied');
    expect(await keysUnder(`${base}/v2/`)).toEqual([]);
    expect(await dest.readManifest(period)).toBe(first.manifestJson);
    await expectIntact(dest, firstFiles);
  });

  it('keeps the current and the previous version and deletes older ones', async () => {
    const dest = destination({ staleVersionAgeMs: 0 });
    await runExport(dest, period, 'v1', { 'shifts.csv': testBytes(100, 1) });
    await runExport(dest, period, 'v2', { 'shifts.csv': testBytes(100, 2) });
    expect(await keysUnder(`${base}/`)).toEqual([
      `${base}/manifest.json`,
      `${base}/v1/shifts.csv`,
      `${base}/v2/shifts.csv`,
    ]);
    await runExport(dest, period, 'v3', { 'shifts.csv': testBytes(100, 3) });
    expect(await keysUnder(`${base}/`)).toEqual([
      `${base}/manifest.json`,
      `${base}/v2/shifts.csv`,
      `${base}/v3/shifts.csv`,
    ]);
    await expectIntact(dest, { 'shifts.csv': testBytes(100, 3) });
  });

  it('stores files in folders of their own (a split export) and deletes them with their version', async () => {
    const dest = destination({ staleVersionAgeMs: 0 });
    const nested = { 'divisions/12/shifts.csv': testBytes(100, 1), 'rejected.csv': testBytes(10, 1) };
    for (const id of ['v1', 'v2', 'v3']) await runExport(dest, period, id, nested);
    expect(await keysUnder(`${base}/`)).toEqual([
      `${base}/manifest.json`,
      `${base}/v2/divisions/12/shifts.csv`,
      `${base}/v2/rejected.csv`,
      `${base}/v3/divisions/12/shifts.csv`,
      `${base}/v3/rejected.csv`,
    ]);
    const manifest = JSON.parse((await dest.readManifest(period)) ?? 'null') as { files: StoredFile[] };
    const file = manifest.files.find((f) => f.path === 'v3/divisions/12/shifts.csv');
    expect(file?.name).toBe('shifts.csv');
    expect(await readAll(await dest.openPublishedFile(period, file?.path ?? ''))).toEqual(
      nested['divisions/12/shifts.csv'],
    );
  });

  it('keeps S3_KEEP_VERSIONS versions, and deletes older ones once S3_KEEP_MIN_AGE_MINUTES old', async () => {
    const configured = async (env: Record<string, string>): Promise<S3Destination> => {
      const dest = await createDestination(`s3://${bucket}/exports`, loadS3Config(env), silentLogger, {
        s3Client: client,
      });
      if (!(dest instanceof S3Destination)) throw new Error('not an S3 destination');
      return dest;
    };
    const keep3 = await configured({ S3_KEEP_VERSIONS: '3', S3_KEEP_MIN_AGE_MINUTES: '0' });
    for (const id of ['v1', 'v2', 'v3', 'v4'])
      await runExport(keep3, period, id, { 'shifts.csv': testBytes(100, 1) });
    expect(await keysUnder(`${base}/`)).toEqual([
      `${base}/manifest.json`,
      `${base}/v2/shifts.csv`,
      `${base}/v3/shifts.csv`,
      `${base}/v4/shifts.csv`,
    ]);
    // The default age (60 minutes) keeps the young versions beyond the count.
    const keep2 = await configured({});
    await runExport(keep2, period, 'v5', { 'shifts.csv': testBytes(100, 1) });
    expect(await keysUnder(`${base}/`)).toHaveLength(5);
    expect(() => loadS3Config({ S3_KEEP_VERSIONS: '1' })).toThrow(/^S3_KEEP_VERSIONS is invalid/);
  });

  it('deletes old versions only of objects it wrote, never foreign keys under the period', async () => {
    const foreign = [
      `${base}/notes/readme.txt`,
      `${base}/v0/shifts.csv`, // named like a version of ours, not written by the exporter
      `${base}/v1/deeper/extra.csv`,
      `${base}/loose.txt`,
    ];
    for (const key of foreign)
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: "not the exporter's" }));
    const dest = destination({ staleVersionAgeMs: 0 });
    await runExport(dest, period, 'v1', { 'shifts.csv': testBytes(100, 1) });
    await runExport(dest, period, 'v2', { 'shifts.csv': testBytes(100, 2) });
    // A multipart upload this time: its metadata goes with CreateMultipartUpload.
    await runExport(dest, period, 'v3', { 'shifts.csv': testBytes(6 * MiB, 3) });
    expect(await keysUnder(`${base}/`)).toEqual(
      [...foreign, `${base}/manifest.json`, `${base}/v2/shifts.csv`, `${base}/v3/shifts.csv`].sort(),
    );
    // Every object of a version names it in its metadata: that is what makes it deletable.
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: `${base}/v3/shifts.csv` }));
    expect(head.Metadata?.['export-id']).toBe('v3');
  });

  it('never deletes a version younger than staleVersionAgeMs: another worker may still be writing it', async () => {
    const dest = destination(); // default: 1 hour
    for (const id of ['v1', 'v2', 'v3'])
      await runExport(dest, period, id, { 'shifts.csv': testBytes(100, 1) });
    expect(await keysUnder(`${base}/`)).toHaveLength(4);
  });

  it('stops every upload and stores nothing when the AbortSignal fires', async () => {
    const dest = destination();
    const controller = new AbortController();
    const publication = await dest.begin(period, 'v1', controller.signal);
    const a = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    const b = publication.openFile('shifts.xlsx', CONTENT_TYPES.xlsx);
    a.stream.write(testBytes(6 * MiB, 1));
    b.stream.write(testBytes(100, 2));
    await server.waitFor(
      (r) => r.operation === 'UploadPart' && r.key === `${base}/v1/shifts.csv` && r.status === 200,
    );
    controller.abort();
    expect((await rejection(a.done())).code).toBe('ABORTED');
    expect((await rejection(b.done())).code).toBe('ABORTED');
    await publication.abort();
    expect(server.openUploads(bucket)).toEqual([]);
    expect(await keysUnder(`${base}/`)).toEqual([]);
    expect(await dest.readManifest(period)).toBeUndefined();
  });

  it('stores an empty file as an empty object with the hash of nothing', async () => {
    const dest = destination();
    const run = await runExport(dest, period, 'v1', { 'rejected.csv': Buffer.alloc(0) });
    expect(run.stored).toEqual([
      { name: 'rejected.csv', path: 'v1/rejected.csv', bytes: 0, sha256: sha256(Buffer.alloc(0)) },
    ]);
    expect((await download(`${base}/v1/rejected.csv`)).length).toBe(0);
  });

  it('ignores abort() after publish(): the published export stays', async () => {
    const dest = destination();
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(sink.stream, testBytes(100, 1));
    const stored = await sink.done();
    await publication.publish(JSON.stringify({ files: [stored] }));
    await publication.abort(new Error('too late'));
    expect(await keysUnder(`${base}/`)).toEqual([`${base}/manifest.json`, `${base}/v1/shifts.csv`]);
  });

  it('refuses to publish before every file has ended, and publishes nothing', async () => {
    const dest = destination();
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    sink.stream.write('half');
    const error = await rejection(publication.publish('{}'));
    expect(error.code).toBe('DEST_INVALID');
    expect(error.message).toContain('shifts.csv');
    expect(await keysUnder(`${base}/`)).toEqual([]);
  });

  it('reads nothing for a period never exported, refuses traversal and reports a missing file', async () => {
    const dest = destination();
    expect(await dest.readManifest(period)).toBeUndefined();
    await runExport(dest, period, 'v1', { 'shifts.csv': testBytes(10, 1) });
    for (const path of [
      '../other/manifest.json',
      '/etc/passwd',
      'v1/../../x',
      'v1//shifts.csv',
      'v1\\shifts.csv',
    ]) {
      expect((await rejection(dest.openPublishedFile(period, path))).code).toBe('DEST_INVALID');
    }
    expect((await rejection(dest.openPublishedFile(period, 'v1/nope.csv'))).code).toBe('DEST_NOT_FOUND');
  });

  it('presigns a short-lived URL that downloads a published file without credentials', async () => {
    const dest = destination();
    await runExport(dest, period, 'v1', { 'shifts.csv': testBytes(5000, 9) });
    const url = await dest.presignPublishedFile(period, 'v1/shifts.csv', 300);
    expect(url).toContain('X-Amz-Expires=300');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(testBytes(5000, 9))).toBe(true);
    expect((await rejection(dest.presignPublishedFile(period, 'v1/shifts.csv', 8 * 24 * 3600))).code).toBe(
      'DEST_INVALID',
    );
    expect((await rejection(dest.presignPublishedFile(period, '../x', 60))).code).toBe('DEST_INVALID');
  });

  it('signs download URLs for S3_PUBLIC_ENDPOINT, the address clients outside the S3 network use', async () => {
    await runExport(destination(), period, 'v1', { 'shifts.csv': testBytes(3000, 4) });
    // The public address: another port in front of the same server, as a published container port is.
    const proxy = await startTcpProxy(new URL(server.endpoint));
    try {
      // Frozen, as loadS3Config returns it.
      const config: S3Config = Object.freeze({
        endpoint: server.endpoint,
        publicEndpoint: proxy.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        sse: undefined,
        sseKmsKeyId: undefined,
        partSizeBytes: 5 * MiB,
        retention: { keepVersions: 2, minAgeMs: 3_600_000 },
        credentials: Object.freeze({
          accessKeyId: server.accessKeyId,
          secretAccessKey: server.secretAccessKey,
        }),
      });
      const dest = await createDestination(`s3://${bucket}/exports`, config, silentLogger);
      if (!(dest instanceof S3Destination)) throw new Error('expected an S3 destination');
      try {
        const url = await dest.presignPublishedFile(period, 'v1/shifts.csv', 300);
        expect(url.startsWith(`${server.endpoint}/`)).toBe(false);
        expect(url.startsWith(`${proxy.endpoint}/${bucket}/`)).toBe(true);
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(Buffer.from(await response.arrayBuffer()).equals(testBytes(3000, 4))).toBe(true);
        // SigV4 signs the host: the URL must name the public address, not be rewritten to it.
        expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('host');
      } finally {
        dest.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it('fails with a non-retryable DEST_S3 error that never shows the secret when the credentials are wrong', async () => {
    const secret = 'wrong-secret-7f3a9c';
    const { logger, text } = capturingLogger();
    const dest = destination({
      client: server.client({ credentials: { accessKeyId: 'AKIAWRONG', secretAccessKey: secret } }),
      logger,
    });
    const checked = await rejection(dest.check());
    expect(checked.code).toBe('DEST_S3');
    expect(checked.retryable).toBe(false);
    expect(checked.message).toContain('InvalidAccessKeyId');

    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(sink.stream, testBytes(1000, 1)).catch(() => undefined);
    const failed = await rejection(sink.done());
    expect(failed.code).toBe('DEST_S3');
    expect(failed.retryable).toBe(false);
    await publication.abort(failed);
    for (const shown of [checked.message, failed.message, JSON.stringify(failed.details), text()]) {
      expect(shown).not.toContain(secret);
      expect(shown).not.toContain(server.secretAccessKey);
    }
    expect(await keysUnder(`${base}/`)).toEqual([]);
  });

  it('fails with a retryable DEST_S3 error when the endpoint is down', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    if (address === null || typeof address === 'string') throw new Error('no port');
    const down = server.client({ endpoint: `http://127.0.0.1:${address.port}`, maxAttempts: 1 });
    const error = await rejection(destination({ client: down }).check());
    expect(error.code).toBe('DEST_S3');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('fails with a non-retryable DEST_S3 error when the bucket does not exist', async () => {
    const error = await rejection(destination({ bucket: `missing-${bucket}`.slice(0, 63) }).check());
    expect(error.code).toBe('DEST_S3');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('NoSuchBucket');
  });
});
