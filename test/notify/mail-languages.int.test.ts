// The delivery e-mail in its readers' languages, against a real SMTP server on 127.0.0.1 (parsed
// with mailparser) and the real local-folder destination: a division whose managers read Russian
// and German gets one message in each, each to its reader, as multipart/alternative (plain text and
// HTML) with Content-Language and <html lang>, its figures formatted for that reader and compared
// with the previous week, read from the manifest published for that week in the same destination.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadS3Config } from '../../src/config/s3-config.js';
import { createDestination } from '../../src/destinations/create-destination.js';
import type { GroupStats } from '../../src/domain/summary.js';
import { silentLogger } from '../../src/logger.js';
import { deliverExportMail, type MailDeliveryReport } from '../../src/notify/deliver-export-mail.js';
import { openExportFiles } from '../../src/notify/export-files.js';
import type { MailDivision } from '../../src/notify/mail-recipients.js';
import { memorySentLog } from '../../src/notify/mail-sent-log.js';
import { smtpSender } from '../../src/notify/smtp-sender.js';
import { manifestStatistics, renderManifest, type Manifest } from '../../src/render/manifest.js';
import { TOOL_NAME } from '../../src/version.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';

const WEEK = { from: '2026-11-16', to: '2026-11-22' };
const WEEK_BEFORE = { from: '2026-11-09', to: '2026-11-15' };

function stats(shifts: number, startMatched: number, finishMatched: number): GroupStats {
  return {
    shifts,
    durationSeconds: shifts * 8 * 3600,
    startChecked: shifts,
    startMatched,
    finishChecked: shifts,
    finishMatched,
    bothChecked: 0,
    bothMatched: 0,
    noLocation: 0,
    startDistanceMedian: null,
    startDistanceP90: null,
    finishDistanceMedian: null,
    finishDistanceP90: null,
    autoFinished: 12,
  };
}

/** A manifest of the split export of `period`: division 3, "Центральный", with two regions. */
function manifestOf(
  period: typeof WEEK,
  exportId: string,
  startMatched: number,
  east: number | null,
): Manifest {
  const division = stats(1204, startMatched, 1000);
  return {
    export_id: exportId,
    period,
    generated_at: '2026-11-23T06:00:00.000Z',
    tool: { name: TOOL_NAME, version: '0.2.0' },
    source: { base_url: 'https://wfm.example.com/api' },
    counts: { fetched: 1210, exported: 1204, rejected: 3, duplicates: 0, outside_window: 3, flagged: 0 },
    statistics: manifestStatistics(division),
    files: [],
    divisions: [
      {
        division_id: 3,
        division_name: 'Центральный',
        shifts: 1204,
        changed: true,
        statistics: manifestStatistics(division),
        region_rates: [
          {
            region_id: 31,
            region_name: 'Восток',
            shifts: 704,
            start_match_rate: east,
            finish_match_rate: 0.8,
          },
          {
            region_id: 32,
            region_name: 'Запад <b>&',
            shifts: 500,
            start_match_rate: 0.7,
            finish_match_rate: 0.9,
          },
        ],
        lowest_shops: [
          {
            shop_id: 301,
            shop_sap: '0301',
            shop_name: 'Тверская\r\nBcc: x@evil.example',
            region_name: 'Запад <b>&',
            shifts: 40,
            start_match_rate: 0.5,
          },
        ],
      },
    ],
    match_rate_threshold: 0.8,
  };
}

const divisions: MailDivision[] = [
  {
    id: 3,
    name: 'Центральный',
    dirs: [
      {
        id: 31,
        login: 'anna@centre.example',
        firstName: 'Анна',
        lastName: 'Смирнова',
        active: true,
        inviteAccepted: true,
        lang: 'ru_RU',
      },
      {
        id: 32,
        login: 'jonas@centre.example',
        firstName: 'Jonas',
        lastName: 'Weber',
        active: true,
        inviteAccepted: true,
        lang: 'de_DE',
      },
    ],
  },
];

let dest: string;
let location: string;
let smtp: SmtpReceiver;
let report: MailDeliveryReport;
const current = manifestOf(WEEK, 'exp-this-week', 1019, 0.9);

beforeAll(async () => {
  dest = mkdtempSync(join(tmpdir(), 'mail-languages-'));
  const destination = await createDestination(dest, () => loadS3Config({}), silentLogger);
  const before = await destination.begin(WEEK_BEFORE, 'exp-week-before');
  await before.publish(renderManifest(manifestOf(WEEK_BEFORE, 'exp-week-before', 1004, 0.95)));
  const now = await destination.begin(WEEK, 'exp-this-week');
  location = (await now.publish(renderManifest(current))).location;
});

afterAll(() => rmSync(dest, { recursive: true, force: true }));

beforeEach(async () => {
  smtp = await startSmtpReceiver();
  const sender = smtpSender({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    user: undefined,
    password: undefined,
    shown: `smtp://127.0.0.1:${smtp.port}`,
  });
  const files = await openExportFiles({
    dest,
    period: WEEK,
    location,
    s3Config: () => loadS3Config({}),
    expiresSeconds: 3600,
    logger: silentLogger,
  });
  try {
    report = await deliverExportMail({
      definition: 'weekly-divisions',
      email: { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'always', lang: 'en' },
      manifest: current,
      divisions,
      files,
      sender,
      sentLog: memorySentLog(),
      from: 'Reports <reports@example.com>',
      maxAttachmentBytes: 1024 * 1024,
      logger: silentLogger,
    });
  } finally {
    files.close();
    sender.close();
  }
});

afterEach(async () => {
  await smtp.close();
});

const mailTo = (address: string) => {
  const found = smtp.messages.filter((m) => m.envelopeTo.includes(address));
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('the delivery e-mail in its readers’ languages', () => {
  it('sends a division read in Russian and German one message in each, each to its reader, and says which', () => {
    expect(report.messages.map((m) => [m.lang, m.status, m.recipients])).toEqual([
      ['ru', 'sent', 1],
      ['de', 'sent', 1],
    ]);
    expect(mailTo('anna@centre.example').envelopeTo).toEqual(['anna@centre.example']);
    expect(mailTo('jonas@centre.example').envelopeTo).toEqual(['jonas@centre.example']);
  });

  it('writes each as multipart/alternative with Content-Language and <html lang>', () => {
    for (const [address, lang] of [
      ['anna@centre.example', 'ru'],
      ['jonas@centre.example', 'de'],
    ] as const) {
      const mail = mailTo(address);
      expect(mail.raw).toMatch(/^Content-Type: multipart\/alternative;/m);
      expect(mail.parsed.headers.get('content-language')).toBe(lang);
      expect(mail.parsed.html).toContain(`<html lang="${lang}"`);
      expect(mail.parsed.text).not.toBe('');
    }
  });

  it('gives the Russian reader Russian words, plurals and numbers, and the change against the week before', () => {
    const { parsed } = mailTo('anna@centre.example');
    expect(parsed.subject).toBe(
      'weekly-divisions: Центральный (3), 16–22 нояб. 2026\u202fг. (1\u00a0204 смены, совпадение начала 84,6\u00a0%)',
    );
    expect(parsed.text).toContain('Смены: 1\u00a0204');
    expect(parsed.text).toContain('Совпадение места начала: 84,6\u00a0% (+1,2 п. п.)');
    expect(parsed.text).toContain('Изменения — к предыдущему периоду, 9–15 нояб. 2026\u202fг.');
    expect(parsed.text).toContain('1. Восток: 90,0\u00a0% (-5,0 п. п.), 704 смены');
    expect(parsed.text).toContain('2. Запад <b>&: 70,0\u00a0% (0,0 п. п.) — ниже порога, 500 смен');
    expect(parsed.html).toContain('Запад &#60;b&#62;&#38;');
    expect(parsed.html).not.toContain('Запад <b>&');
    expect(parsed.text).toContain('Тверская Bcc: x@evil.example');
  });

  it('gives the German reader German words and numbers', () => {
    const { parsed } = mailTo('jonas@centre.example');
    expect(parsed.subject).toBe(
      'weekly-divisions: Центральный (3), 16.–22.11.2026 (1.204 Schichten, Standorttreffer bei Beginn 84,6\u00a0%)',
    );
    expect(parsed.text).toContain('Standorttreffer bei Beginn: 84,6\u00a0% (+1,2 Pp.)');
    expect(parsed.text).toContain('1 von 2 unter dem Schwellenwert von 80,0\u00a0%');
    expect(parsed.html).toContain('Die fünf Filialen mit den wenigsten Standorttreffern bei Beginn');
  });
});
