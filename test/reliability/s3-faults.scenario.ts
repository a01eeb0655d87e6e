// S3 faults: `shift-export run` as a child process exporting to the S3 test server (fauxqs
// in this process, with per-request fault injection). After a good export of the period, each
// fault must end with the run failed cleanly (exit 1, one line) or retried to success: no manifest
// of the failed attempt, no multipart upload left open, the previous export intact (read back and
// checked row by row).

import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createServer } from 'node:net';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { parseManifest } from '../../src/render/manifest.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { runCliExport, type CliExport } from './support/cli-export.js';
import { declareSecret, keepText } from './support/evidence.js';
import { checkRows, type RowCheck } from './support/exported-ids.js';
import { expectedIds } from './support/expected-rows.js';
import { scenario, type ScenarioOutcome } from './support/scenario.js';
import { REPORT_ROWS, sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 's3';
const FROM = '2024-03-26';
const TO = '2024-03-30';
const SHAPE = sourceShape(REPORT_ROWS);

let sandbox: RunningSandbox;
let s3: TestS3Server;
let bucket: string;
let expected: Set<number>;
const PREFIX = 'nightly/shifts';
const BASE = `${PREFIX}/${FROM}_${TO}`;

beforeAll(async () => {
  [sandbox, s3] = await Promise.all([startScenarioSandbox(SHAPE), startTestS3Server()]);
  declareSecret(s3.secretAccessKey);
  bucket = await s3.createBucket();
  expected = expectedIds(SHAPE, FROM, TO);
});

afterAll(async () => {
  await s3?.cleanup();
  await Promise.all([s3?.stop(), sandbox?.close()]);
});

function s3Env(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PART_SIZE_MB: '5',
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    AWS_MAX_ATTEMPTS: '2',
    ...overrides,
  };
}

function exportToS3(name: string, env: Record<string, string> = {}): Promise<CliExport> {
  return runCliExport(`s3-${name}`, {
    baseUrl: sandbox.url,
    from: FROM,
    to: TO,
    env: s3Env(env),
    dest: `s3://${bucket}/${PREFIX}`,
    timeoutMs: 90_000,
  });
}

async function getText(key: string): Promise<string | undefined> {
  try {
    const object = await s3.client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await object.Body?.transformToString('utf8');
  } catch {
    return undefined;
  }
}

/** The export the manifest points at, read back from S3 and checked row by row. */
async function publishedExport(): Promise<{ exportId: string; check: RowCheck; manifest: string }> {
  const manifestText = await getText(`${BASE}/manifest.json`);
  if (manifestText === undefined) throw new Error('no manifest.json published');
  keepText('s3-manifest', manifestText);
  const manifest = parseManifest(manifestText);
  const ids = async (name: string): Promise<number[]> => {
    const text = await getText(`${BASE}/${manifest.export_id}/${name}`);
    if (text === undefined) throw new Error(`${name} of ${manifest.export_id} is missing`);
    return (parse(text, { bom: true, columns: true }) as Record<string, string>[]).map((r) =>
      Number(r['shift_id']),
    );
  };
  const check = checkRows(expected, await ids('shifts.csv'), await ids('rejected.csv'));
  return { exportId: manifest.export_id, check, manifest: manifestText };
}

let previous: { exportId: string; manifest: string } | undefined;

/** A faulty run must leave S3 as the previous export left it (or publish a complete new export). */
async function afterFault(result: CliExport, mayRecover: boolean): Promise<ScenarioOutcome> {
  const open = s3.openUploads(bucket);
  if (open.length > 0) throw new Error(`${open.length} multipart uploads left open`);
  const now = await publishedExport();
  if (result.run.code === 0) {
    if (!mayRecover) throw new Error('the run published despite the fault');
    previous = { exportId: now.exportId, manifest: now.manifest };
    return {
      outcome: 'retried by the SDK, published; no upload left open',
      expected: expected.size,
      ...now.check,
    };
  }
  const lines = result.run.stderr.trim().split('\n');
  const last = lines.at(-1) ?? '';
  if (now.manifest !== previous?.manifest) throw new Error('the manifest changed after a failed run');
  return {
    outcome: `failed ${result.errorCode ?? last.slice(0, 40)}; previous export intact, no upload open`,
    expected: expected.size,
    ...now.check,
  };
}

describe('S3 faults', () => {
  it('publishes a first export to S3', () =>
    scenario(GROUP, 'previous export (no fault)', async () => {
      const result = await exportToS3('first');
      if (result.run.code !== 0) throw new Error(result.run.stderr.trim());
      const now = await publishedExport();
      previous = { exportId: now.exportId, manifest: now.manifest };
      return { outcome: 'published', expected: expected.size, ...now.check };
    }));

  it('retries a part that fails once with 500', () =>
    scenario(GROUP, '500 once on one part upload', async () => {
      const stop = s3.failRequests(
        (r) => r.operation === 'UploadPart' && r.key.endsWith('/shifts.csv') && r.query['partNumber'] === '2',
        { status: 500, code: 'InternalError', times: 1 },
      );
      try {
        return await afterFault(await exportToS3('part-500-once'), true);
      } finally {
        stop();
      }
    }));

  it('fails cleanly when one part keeps failing with 500', () =>
    scenario(GROUP, '500 on every try of one part', async () => {
      const stop = s3.failRequests(
        (r) => r.operation === 'UploadPart' && r.key.endsWith('/shifts.csv') && r.query['partNumber'] === '2',
        { status: 500, code: 'InternalError', times: 1000 },
      );
      try {
        return await afterFault(await exportToS3('part-500'), false);
      } finally {
        stop();
      }
    }));

  it('fails cleanly when the endpoint is down for the whole export', () =>
    scenario(GROUP, 'S3 endpoint down', async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const address = server.address();
          server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
        });
      });
      return afterFault(await exportToS3('down', { S3_ENDPOINT: `http://127.0.0.1:${port}` }), false);
    }));

  it('fails cleanly with wrong credentials', () =>
    scenario(GROUP, 'S3 wrong credentials', async () => {
      const wrongSecret = 'wrong-secret-4b1d0e77';
      declareSecret(wrongSecret);
      return afterFault(
        await exportToS3('wrong-creds', {
          AWS_ACCESS_KEY_ID: 'AKIAWRONGWRONGWRONG',
          AWS_SECRET_ACCESS_KEY: wrongSecret,
        }),
        false,
      );
    }));
});
