// deliverExportMail against a real SMTP server on 127.0.0.1 (smtp-server, parsed with mailparser),
// files published through the real local-folder destination and, where a retry must remember
// what was sent, the sent-log in a real redis-server: each manager gets exactly one mail with only
// their division's files; a recipient refused with 550 is recorded and not retried; an unreachable
// server leaves the messages pending for a later attempt; an attempt after the server accepted
// sends nothing again; CR/LF in names never becomes a header; a file over the limit goes as its path.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SmtpServer } from '../../src/config/smtp-config.js';
import { createDestination } from '../../src/destinations/create-destination.js';
import { loadS3Config } from '../../src/config/s3-config.js';
import { silentLogger } from '../../src/logger.js';
import { deliverExportMail, type DeliverExportMailInput } from '../../src/notify/deliver-export-mail.js';
import { openExportFiles } from '../../src/notify/export-files.js';
import type { MailManifest } from '../../src/notify/mail-message.js';
import type { MailDivision } from '../../src/notify/mail-recipients.js';
import { memorySentLog, redisSentLog } from '../../src/notify/mail-sent-log.js';
import { smtpSender, type MailSender } from '../../src/notify/smtp-sender.js';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';

const PERIOD = { from: '2026-11-16', to: '2026-11-22' };
const EXPORT_ID = 'exp-mail-1';

/** Each division's workbook holds rows only that division has: a foreign one would show. */
const FILES: Record<string, { division: number | null; text: string }> = {
  'north-shifts.xlsx': { division: 1, text: 'north-only-row anna.shift' },
  'north-shifts.csv': { division: 1, text: 'north,csv' },
  'south-shifts.xlsx': { division: 2, text: 'south-only-row sam.shift' },
  'rejected.csv': { division: null, text: 'all,divisions,rejected' },
};

let dest: string;
let location: string;
let manifest: MailManifest;

const divisions: MailDivision[] = [
  {
    id: 1,
    name: 'North',
    dirs: [
      {
        id: 11,
        login: 'anna@north.example',
        firstName: 'Анна\r\nBcc: evil@attacker.example',
        lastName: 'Ivanova\n',
        active: true,
        inviteAccepted: true,
      },
      {
        id: 12,
        login: 'a@b.c\r\nBcc: x@evil.example',
        firstName: 'Hostile',
        lastName: 'Login',
        active: true,
        inviteAccepted: true,
      },
      {
        id: 13,
        login: 'off@north.example',
        firstName: 'Off',
        lastName: 'Line',
        active: false,
        inviteAccepted: true,
      },
    ],
  },
  {
    id: 2,
    name: 'South',
    dirs: [
      {
        id: 21,
        login: 'sam@south.example',
        firstName: 'Sam',
        lastName: 'Süd',
        active: true,
        inviteAccepted: true,
      },
      {
        id: 22,
        login: 'gone@south.example',
        firstName: 'Gone',
        lastName: 'Away',
        active: true,
        inviteAccepted: true,
      },
    ],
  },
];

afterAll(() => rmSync(dest, { recursive: true, force: true }));

beforeAll(async () => {
  dest = mkdtempSync(join(tmpdir(), 'mail-delivery-'));
  const destination = await createDestination(dest, () => loadS3Config({}), silentLogger);
  const publication = await destination.begin(PERIOD, EXPORT_ID);
  const stored = [];
  for (const [name, { text }] of Object.entries(FILES)) {
    const sink = publication.openFile(name, 'application/octet-stream');
    sink.stream.end(Buffer.from(text));
    stored.push(await sink.done());
  }
  const published = await publication.publish('{}');
  location = published.location;
  manifest = {
    export_id: EXPORT_ID,
    period: PERIOD,
    counts: { exported: 25, rejected: 1 },
    statistics: { start_match_rate: 0.9, finish_match_rate: 0.8 },
    files: stored.map((f) => ({
      name: f.name,
      path: f.path,
      bytes: f.bytes,
      rows: 1,
      content_type: f.name.endsWith('.csv')
        ? 'text/csv; charset=utf-8'
        : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      division_id: FILES[f.name]?.division ?? null,
    })),
    divisions: [
      { division_id: 1, division_name: 'North', shifts: 10, changed: true },
      { division_id: 2, division_name: 'South', shifts: 15, changed: true },
    ],
  };
});

let smtp: SmtpReceiver;
let sender: MailSender;

beforeEach(async () => {
  smtp = await startSmtpReceiver();
  sender = smtpSender(serverAt(smtp.port));
});

afterEach(async () => {
  sender.close();
  await smtp.close();
});

function serverAt(port: number): SmtpServer {
  return {
    host: '127.0.0.1',
    port,
    secure: false,
    user: undefined,
    password: undefined,
    shown: `smtp://127.0.0.1:${port}`,
  };
}

async function deliver(overrides: Partial<DeliverExportMailInput> = {}) {
  const files = await openExportFiles({
    dest,
    period: PERIOD,
    location,
    s3Config: () => loadS3Config({}),
    expiresSeconds: 3600,
    logger: silentLogger,
  });
  try {
    return await deliverExportMail({
      definition: 'weekly-by-division',
      email: { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'always', lang: 'en' },
      manifest,
      divisions,
      files,
      sender,
      sentLog: memorySentLog(),
      from: 'Reports <reports@example.com>',
      maxAttachmentBytes: 10 * 1024 * 1024,
      logger: silentLogger,
      ...overrides,
    });
  } finally {
    files.close();
  }
}

const mailTo = (address: string) => smtp.messages.filter((m) => m.envelopeTo.includes(address));

describe('deliverExportMail', () => {
  it("gives each manager exactly one mail with only their division's files", async () => {
    const report = await deliver();
    expect(report.messages.map((m) => [m.division_id, m.status, m.attached])).toEqual([
      [1, 'sent', 1],
      [2, 'sent', 1],
    ]);
    expect(mailTo('anna@north.example')).toHaveLength(1);
    expect(mailTo('sam@south.example')).toHaveLength(1);
    expect(smtp.messages).toHaveLength(2);
    const north = mailTo('anna@north.example')[0]!;
    expect(north.envelopeTo).toEqual(['anna@north.example']);
    expect(north.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['weekly-by-division_2026-11-16_2026-11-22_north-shifts.xlsx', 'north-only-row anna.shift'],
    ]);
    expect(north.raw).not.toContain('south-only-row');
    expect(north.raw).not.toContain('sam@south.example');
    expect(north.parsed.subject).toBe('weekly-by-division: North (1), 2026-11-16 to 2026-11-22 (10 shifts)');
    expect(north.parsed.text).toContain('Shifts: 10');
    expect(north.parsed.html).toContain('<table');
    const south = mailTo('sam@south.example')[0]!;
    expect(south.raw).not.toContain('north-only-row');
    expect(south.raw).not.toContain('anna@north.example');
    expect(report.skipped.map((s) => [s.manager_id, s.reason])).toEqual([
      [12, 'login_not_an_address'],
      [13, 'inactive'],
    ]);
  });

  it('never lets CR/LF of a name or login become a header', async () => {
    await deliver();
    const north = mailTo('anna@north.example')[0]!;
    const header = north.raw.slice(0, north.raw.indexOf('\r\n\r\n'));
    expect(header).not.toMatch(/^Bcc:/im);
    expect(north.parsed.headers.has('bcc')).toBe(false);
    expect(north.parsed.to).toMatchObject({
      value: [{ address: 'anna@north.example', name: 'Анна Bcc: evil@attacker.example Ivanova' }],
    });
    expect(smtp.messages.flatMap((m) => m.envelopeTo)).not.toContain('x@evil.example');
    expect(smtp.messages.flatMap((m) => m.envelopeTo)).not.toContain('evil@attacker.example');
  });

  it('records a recipient refused with 550 and does not try it again', async () => {
    smtp.refuse.add('gone@south.example');
    const sentLog = memorySentLog();
    const first = await deliver({ sentLog });
    const south = first.messages.find((m) => m.division_id === 2);
    expect(south).toMatchObject({ status: 'sent', refused: ['gone@south.example'] });
    expect(first.pending).toBe(0);
    smtp.refuse.add('sam@south.example');
    const again = await deliver({ sentLog });
    expect(again.messages.map((m) => m.status)).toEqual(['already_sent', 'already_sent']);
    expect(smtp.messages).toHaveLength(2);
  });

  it('records a message every recipient of which is refused with 550, and does not retry it', async () => {
    smtp.refuse.add('sam@south.example');
    smtp.refuse.add('gone@south.example');
    const sentLog = memorySentLog();
    const first = await deliver({ sentLog });
    expect(first.messages.map((m) => [m.division_id, m.status])).toEqual([
      [1, 'sent'],
      [2, 'refused'],
    ]);
    expect(first.messages[1]?.reason).toMatch(
      /^MAIL_SEND: the message was refused by the SMTP server smtp:\/\/127\.0\.0\.1:\d+: 550/,
    );
    expect(first.pending).toBe(0);
    smtp.refuse.clear();
    const again = await deliver({ sentLog });
    expect(again.messages.map((m) => m.status)).toEqual(['already_sent', 'refused']);
    expect(smtp.messages).toHaveLength(1);
  });

  it('leaves every message pending while the SMTP server is down, and sends them on a later attempt', async () => {
    const sentLog = memorySentLog();
    const down = smtpSender(serverAt(await freePort()), { timeoutMs: 2_000 });
    try {
      const first = await deliver({ sentLog, sender: down });
      expect(first.messages.map((m) => m.status)).toEqual(['failed', 'failed']);
      expect(first.pending).toBe(2);
      expect(first.messages[0]?.reason).toMatch(/^MAIL_SEND: the message could not reach the SMTP server/);
    } finally {
      down.close();
    }
    expect(sentLog.entries.size).toBe(0);
    smtp.deferNext(1);
    const second = await deliver({ sentLog });
    expect(second.messages.map((m) => m.status)).toEqual(['failed', 'sent']);
    const third = await deliver({ sentLog });
    expect(third.messages.map((m) => m.status)).toEqual(['sent', 'already_sent']);
    expect(mailTo('anna@north.example')).toHaveLength(1);
    expect(mailTo('sam@south.example')).toHaveLength(1);
  });

  it('names the path of a file over SMTP_MAX_ATTACHMENT_MB instead of attaching it, and says why', async () => {
    const report = await deliver({
      email: { to: ['hq@example.com'], cc: [], attach: ['xlsx', 'csv'], when: 'always', lang: 'en' },
      maxAttachmentBytes: 12,
    });
    expect(report.messages).toMatchObject([{ division_id: null, status: 'sent', attached: 1, linked: 3 }]);
    const [mail] = smtp.messages;
    expect(mail?.parsed.attachments.map((a) => a.filename)).toEqual([
      'weekly-by-division_2026-11-16_2026-11-22_north-shifts.csv',
    ]);
    expect(mail?.parsed.text).toContain(
      `north-shifts.xlsx (25 B, 1 rows): not attached, larger than the 12 B attachment limit (SMTP_MAX_ATTACHMENT_MB). On the export's server: ${location}/north-shifts.xlsx`,
    );
    expect(mail?.parsed.subject).toBe(
      'weekly-by-division: all divisions, 2026-11-16 to 2026-11-22 (25 shifts, start match 90.0%)',
    );
  });

  it('sends nothing for a division whose rows did not change, with when: changed', async () => {
    const report = await deliver({
      email: { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'changed', lang: 'en' },
      manifest: {
        ...manifest,
        divisions: manifest.divisions?.map((d) => ({ ...d, changed: d.division_id === 2 })),
      },
    });
    expect(report.unchanged).toEqual([1]);
    expect(smtp.messages.map((m) => m.envelopeTo)).toEqual([['sam@south.example', 'gone@south.example']]);
  });
});

describe('deliverExportMail with the sent-log in Redis', () => {
  let redisServer: RedisServer;
  let redis: Redis;
  const prefix = `{test-mail-${process.pid}}`;

  beforeAll(async () => {
    redisServer = await startRedisServer();
  });

  afterAll(async () => {
    await redisServer.stop();
  });

  beforeEach(() => {
    redis = new Redis(redisServer.url);
  });

  afterEach(async () => {
    await redis.quit();
  });

  it('does not send again when a job fails after the server accepted its mail and runs again', async () => {
    const attempt = async () => {
      const report = await deliver({ sentLog: redisSentLog(redis, prefix) });
      // The job fails after the send (its worker crashed, Redis blipped): BullMQ runs it again.
      return report;
    };
    await attempt();
    expect(smtp.messages).toHaveLength(2);
    const retried = await attempt();
    expect(retried.messages.map((m) => m.status)).toEqual(['already_sent', 'already_sent']);
    expect(smtp.messages).toHaveLength(2);
    expect(await redis.ttl(`${prefix}:shift-export-mail:sent:${retried.messages[0]?.key}`)).toBeGreaterThan(
      0,
    );
  });
});
