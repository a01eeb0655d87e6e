// The files of a delivery e-mail from an export on S3 (the test S3 server on 127.0.0.1): a file
// within SMTP_MAX_ATTACHMENT_MB is attached with the bytes the manifest lists, streamed from the
// bucket; a larger one goes as a presigned URL that downloads those bytes without credentials.

import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadS3Config } from '../../src/config/s3-config.js';
import { silentLogger } from '../../src/logger.js';
import { deliverExportMail } from '../../src/notify/deliver-export-mail.js';
import { openExportFiles } from '../../src/notify/export-files.js';
import { memorySentLog } from '../../src/notify/mail-sent-log.js';
import { smtpSender } from '../../src/notify/smtp-sender.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { runConfiguredExport } from '../support/run-configured-export.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';

const PERIOD = { from: '2024-03-30', to: '2024-03-30' };

let sandbox: RunningSandbox;
let s3: TestS3Server;
let smtp: SmtpReceiver;

beforeAll(async () => {
  [sandbox, s3] = await Promise.all([startTestSandbox(), startTestS3Server()]);
  // The AWS credential chain, as a deployment without S3_*_FILE has it.
  process.env['AWS_ACCESS_KEY_ID'] = s3.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = s3.secretAccessKey;
});

afterAll(async () => {
  delete process.env['AWS_ACCESS_KEY_ID'];
  delete process.env['AWS_SECRET_ACCESS_KEY'];
  await Promise.all([sandbox?.close(), s3?.stop()]);
});

beforeEach(async () => {
  smtp = await startSmtpReceiver();
});

afterEach(async () => {
  await smtp.close();
  await s3.cleanup();
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('delivery e-mail of an export on S3', () => {
  it('attaches the small files from the bucket and links the large one with a presigned URL', async () => {
    const bucket = await s3.createBucket();
    const env = {
      EXPORT_DEST: `s3://${bucket}/exports`,
      WFM_BASE_URL: sandbox.url,
      WFM_TOKEN: SANDBOX_READER_TOKEN,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
    };
    const { result } = await runConfiguredExport(env, PERIOD, ['csv']);
    const shifts = result.manifest.files.find((f) => f.name === 'shifts.csv');
    if (shifts === undefined) throw new Error('no shifts.csv');
    const files = await openExportFiles({
      dest: env.EXPORT_DEST,
      period: PERIOD,
      location: result.location,
      s3Config: () => loadS3Config(env),
      expiresSeconds: 600,
      logger: silentLogger,
    });
    const sender = smtpSender({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: undefined,
      password: undefined,
      shown: smtp.url,
    });
    try {
      const report = await deliverExportMail({
        definition: 'daily',
        email: { to: ['hq@example.com'], cc: [], attach: ['csv'], when: 'always', lang: 'en' },
        manifest: result.manifest,
        divisions: [],
        files,
        sender,
        sentLog: memorySentLog(),
        from: 'reports@example.com',
        maxAttachmentBytes: shifts.bytes - 1,
        logger: silentLogger,
      });
      expect(report.messages).toMatchObject([{ status: 'sent', linked: 1 }]);
    } finally {
      files.close();
      sender.close();
    }
    const [mail] = smtp.messages;
    if (mail === undefined) throw new Error('no mail arrived');
    const csvFiles = result.manifest.files.filter((f) => f.name.endsWith('.csv') && f.name !== 'shifts.csv');
    expect(mail.parsed.attachments).toHaveLength(csvFiles.length);
    for (const a of mail.parsed.attachments) {
      const listed = csvFiles.find((f) => a.filename === `daily_${PERIOD.from}_${PERIOD.to}_${f.name}`);
      expect(listed, a.filename).toBeDefined();
      expect(sha256(a.content)).toBe(listed?.sha256);
    }
    const url = /Download: (\S+)/.exec(mail.parsed.text ?? '')?.[1];
    if (url === undefined) throw new Error('no link in the mail');
    expect(url).toContain('X-Amz-Signature=');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(shifts.sha256);
  });
});
