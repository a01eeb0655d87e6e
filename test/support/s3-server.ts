// A real S3-compatible server for integration tests: fauxqs 1.9 in this process, on 127.0.0.1 and a
// free port, in memory. Built from fauxqs's buildApp (startFauxqs hides the fastify instance) so
// that the test can watch and steer it from the server side:
// - every request is recorded (operation, key, query, a few headers, status, order of arrival and
//   of response), so tests can prove what reached the server and in which order;
// - ListMultipartUploads, which fauxqs lacks, is answered from that record (created minus
//   completed minus aborted upload ids), so "no multipart upload left open" can be asserted through
//   the real S3 API;
// - the access key id of each request is checked (fauxqs accepts any), so wrong credentials get
//   S3's 403 InvalidAccessKeyId — signatures are not verified;
// - faults can be injected per request (e.g. a 500 on the second part of one upload).
// Each test creates its own bucket with createBucket(); cleanup() removes them.

import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  type S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildApp } from 'fauxqs';
import { createS3Client } from '../../src/destinations/s3-client.js';
import { deleteObjects, listObjects } from '../../src/destinations/s3-objects.js';
import { nameResource } from './leak-guard.js';

export type S3Operation =
  | 'CreateBucket'
  | 'DeleteBucket'
  | 'HeadBucket'
  | 'ListObjects'
  | 'DeleteObjects'
  | 'ListMultipartUploads'
  | 'PutObject'
  | 'CopyObject'
  | 'GetObject'
  | 'HeadObject'
  | 'DeleteObject'
  | 'CreateMultipartUpload'
  | 'UploadPart'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'Other';

export interface S3RequestRecord {
  readonly operation: S3Operation;
  readonly method: string;
  readonly bucket: string;
  readonly key: string;
  readonly query: Readonly<Record<string, string>>;
  /** Lower-case header names; only those tests look at. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Order of arrival, from 1. */
  readonly arrived: number;
  /** Order of the response, from 1; 0 while unanswered. */
  answered: number;
  status: number;
  /** The multipart upload id it created or worked on. */
  uploadId: string | undefined;
}

export interface S3Fault {
  readonly status: number;
  readonly code: string;
  readonly message?: string;
  /** How many matching requests fail (default: all). */
  readonly times?: number;
}

export interface TestS3Server {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly requests: readonly S3RequestRecord[];
  /** A client for this server with the right credentials; `overrides` e.g. wrong ones. */
  client(overrides?: Partial<S3ClientConfig>): S3Client;
  /** Creates a bucket with a unique name through the S3 API; cleanup() removes it. */
  createBucket(): Promise<string>;
  /** Resolves with the first answered request that matches (already answered, or when it is). */
  waitFor(match: (request: S3RequestRecord) => boolean): Promise<S3RequestRecord>;
  /** Upload ids created in `bucket` and neither completed nor aborted. */
  openUploads(bucket: string): string[];
  /** Answers matching requests (after their body was read) with an S3 error; returns the remover. */
  failRequests(match: (request: S3RequestRecord) => boolean, fault: S3Fault): () => void;
  /** Drops faults; aborts open uploads, deletes objects and deletes the buckets created so far. */
  cleanup(): Promise<void>;
  stop(): Promise<void>;
}

function operationOf(
  method: string,
  key: string,
  query: Record<string, string>,
  headers: Record<string, unknown>,
): S3Operation {
  const has = (name: string): boolean => Object.hasOwn(query, name);
  if (key === '') {
    if (method === 'PUT') return 'CreateBucket';
    if (method === 'DELETE') return 'DeleteBucket';
    if (method === 'HEAD') return 'HeadBucket';
    if (method === 'POST' && has('delete')) return 'DeleteObjects';
    if (method === 'GET') return has('uploads') ? 'ListMultipartUploads' : 'ListObjects';
    return 'Other';
  }
  if (method === 'PUT') {
    if (has('uploadId') && has('partNumber')) return 'UploadPart';
    return headers['x-amz-copy-source'] === undefined ? 'PutObject' : 'CopyObject';
  }
  if (method === 'POST')
    return has('uploads') ? 'CreateMultipartUpload' : has('uploadId') ? 'CompleteMultipartUpload' : 'Other';
  if (method === 'DELETE') return has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
  if (method === 'GET') return 'GetObject';
  if (method === 'HEAD') return 'HeadObject';
  return 'Other';
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message><RequestId>test</RequestId></Error>`;
}

function accessKeyOf(request: FastifyRequest, query: Record<string, string>): string | undefined {
  const authorization = request.headers.authorization;
  const fromHeader =
    typeof authorization === 'string' ? /Credential=([^/,\s]+)\//.exec(authorization)?.[1] : undefined;
  return fromHeader ?? query['X-Amz-Credential']?.split('/')[0];
}

const RECORDED_HEADERS = [
  'content-type',
  'content-encoding',
  'content-disposition',
  'cache-control',
  'x-amz-server-side-encryption',
  'x-amz-server-side-encryption-aws-kms-key-id',
  'x-amz-meta-export-id',
] as const;

export async function startTestS3Server(): Promise<TestS3Server> {
  const accessKeyId = `TEST${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}`;
  const secretAccessKey = `test-secret-${randomUUID()}`;
  const app = buildApp({ logger: false });
  const requests: S3RequestRecord[] = [];
  const records = new WeakMap<FastifyRequest, S3RequestRecord>();
  const faults = new Set<{ match: (r: S3RequestRecord) => boolean; fault: S3Fault; left: number }>();
  const clients: S3Client[] = [];
  const buckets = new Set<string>();
  const waiters = new Set<{
    match: (r: S3RequestRecord) => boolean;
    resolve: (r: S3RequestRecord) => void;
  }>();
  let admin: S3Client | undefined;
  let arrivals = 0;
  let answers = 0;

  const openUploads = (bucket: string): string[] => {
    const created = new Map<string, string>();
    for (const r of requests) {
      if (r.bucket !== bucket || r.uploadId === undefined) continue;
      if (r.operation === 'CreateMultipartUpload' && r.status === 200) created.set(r.uploadId, r.key);
      if (
        (r.operation === 'CompleteMultipartUpload' && r.status === 200) ||
        (r.operation === 'AbortMultipartUpload' && r.status === 204)
      ) {
        created.delete(r.uploadId);
      }
    }
    return [...created.keys()];
  };

  const sendError = (
    reply: FastifyReply,
    request: FastifyRequest,
    status: number,
    code: string,
    message: string,
  ): FastifyReply => {
    reply.code(status);
    if (request.method === 'HEAD') return reply.send();
    return reply.header('content-type', 'application/xml').send(errorXml(code, message));
  };

  app.addHook('onRequest', async (request, reply) => {
    const url = new URL(request.url, 'http://test');
    const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
    const key = rest.map((segment) => decodeURIComponent(segment)).join('/');
    const query = Object.fromEntries(url.searchParams);
    const headers: Record<string, string | undefined> = {};
    for (const name of RECORDED_HEADERS) {
      const value = request.headers[name];
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const record: S3RequestRecord = {
      operation: operationOf(request.method, key, query, request.headers),
      method: request.method,
      bucket: decodeURIComponent(bucket),
      key,
      query,
      headers,
      arrived: ++arrivals,
      answered: 0,
      status: 0,
      uploadId: query['uploadId'],
    };
    if (bucket === '' || bucket === 'health' || bucket === '_fauxqs') return;
    requests.push(record);
    records.set(request, record);
    if (accessKeyOf(request, query) !== accessKeyId) {
      return sendError(
        reply,
        request,
        403,
        'InvalidAccessKeyId',
        'The AWS Access Key Id you provided does not exist in our records.',
      );
    }
    if (record.operation === 'ListMultipartUploads') {
      const prefix = query['prefix'] ?? '';
      const uploads = openUploads(record.bucket)
        .map((id) => ({
          id,
          key: requests.find((r) => r.uploadId === id && r.operation === 'CreateMultipartUpload')?.key ?? '',
        }))
        .filter((u) => u.key.startsWith(prefix))
        .map((u) => `<Upload><Key>${escapeXml(u.key)}</Key><UploadId>${escapeXml(u.id)}</UploadId></Upload>`)
        .join('');
      return reply
        .header('content-type', 'application/xml')
        .send(
          `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult><Bucket>${escapeXml(record.bucket)}</Bucket><Prefix>${escapeXml(prefix)}</Prefix><IsTruncated>false</IsTruncated>${uploads}</ListMultipartUploadsResult>`,
        );
    }
    return undefined;
  });

  // Faults are answered once the body has been read, as a real server answering a part would.
  app.addHook('preHandler', async (request, reply) => {
    const record = records.get(request);
    if (record === undefined) return undefined;
    for (const entry of faults) {
      if (entry.left > 0 && entry.match(record)) {
        entry.left -= 1;
        return sendError(
          reply,
          request,
          entry.fault.status,
          entry.fault.code,
          entry.fault.message ?? 'injected fault',
        );
      }
    }
    return undefined;
  });

  app.addHook('onSend', async (request, _reply, payload) => {
    const record = records.get(request);
    if (record?.operation === 'CreateMultipartUpload' && typeof payload === 'string') {
      record.uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(payload)?.[1];
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    const record = records.get(request);
    if (record === undefined) return;
    record.status = reply.statusCode;
    record.answered = ++answers;
    for (const waiter of waiters) {
      if (waiter.match(record)) {
        waiters.delete(waiter);
        waiter.resolve(record);
      }
    }
  });

  nameResource(app.server, 'S3 server');
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const endpoint = address.replace(/\/+$/, '');

  const server: TestS3Server = {
    endpoint,
    accessKeyId,
    secretAccessKey,
    requests,
    client(overrides = {}) {
      const client = createS3Client(
        {
          endpoint,
          region: 'us-east-1',
          forcePathStyle: true,
          sse: undefined,
          sseKmsKeyId: undefined,
          publicEndpoint: undefined,
          partSizeBytes: 5 * 1024 * 1024,
          retention: { keepVersions: 2, minAgeMs: 3_600_000 },
        },
        { credentials: { accessKeyId, secretAccessKey }, ...overrides },
      );
      clients.push(client);
      return client;
    },
    async createBucket() {
      const name = `test-${randomUUID()}`;
      admin ??= server.client();
      await admin.send(new CreateBucketCommand({ Bucket: name }));
      buckets.add(name);
      return name;
    },
    openUploads,
    waitFor(match) {
      const done = requests.find((r) => r.answered > 0 && match(r));
      if (done !== undefined) return Promise.resolve(done);
      return new Promise((resolve) => waiters.add({ match, resolve }));
    },
    failRequests(match, fault) {
      const entry = { match, fault, left: fault.times ?? Number.POSITIVE_INFINITY };
      faults.add(entry);
      return () => faults.delete(entry);
    },
    async cleanup() {
      faults.clear();
      admin ??= server.client();
      for (const bucket of buckets) {
        for (const uploadId of openUploads(bucket)) {
          const key =
            requests.find((r) => r.uploadId === uploadId && r.operation === 'CreateMultipartUpload')?.key ??
            '';
          await admin.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
        }
        const keys: string[] = [];
        for await (const object of listObjects(admin, bucket, '')) keys.push(object.key);
        await deleteObjects(admin, bucket, keys);
        await admin.send(new DeleteBucketCommand({ Bucket: bucket }));
      }
      buckets.clear();
    },
    async stop() {
      for (const client of clients) client.destroy();
      await app.close();
    },
  };
  return server;
}
