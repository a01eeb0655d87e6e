// The languages of the division managers' mail, end to end with real parts: the sandbox over HTTP, a
// real redis-server on a free port, a real SMTP server on 127.0.0.1 (parsed with mailparser) and an
// in-process worker given an EXPORTS_FILE. A weekly definition split by division, in German, mails
// each division's managers; it runs for the week before, then for the week, so the week's mail has
// a previous period to compare with. The sandbox's managers (seed 123) read Russian, German,
// Brazilian Portuguese and English, and two read languages without a catalog (kk_KZ, hi_IN).
//
// Each mail is read as its reader gets it: its language (Content-Language, <html lang>, the
// catalog's words), its figures written the reader's way and compared with the week before in
// percentage points, and its attachments opened — the workbook's sheets named in the reader's
// language, and every row of every file the mail's own division's. The upstream report is read
// once per export: the languages are rendered from the one pass, and the mail reads no report.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { definitionExports, requireDefinition } from '../../src/definitions/definition-exports.js';
import { requireExportDefinitions } from '../../src/definitions/load-export-definitions.js';
import { mailMessages } from '../../src/i18n/mail/mail-catalog.js';
import type { Period } from '../../src/domain/period.js';
import type { ReportLanguage } from '../../src/i18n/report-language.js';
import { workbookMessages } from '../../src/i18n/workbook/workbook-catalog.js';
import type { MailDeliveryReport } from '../../src/notify/deliver-export-mail.js';
import { exportRunOf } from '../../src/queue/export-run.js';
import { finishedMailJob } from '../queue/support/finished-mail-job.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import type { Manifest } from '../../src/render/manifest.js';
import { readWorkbook, rowValues, sheet } from '../render/xlsx/workbook-io.js';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from '../support/smtp-receiver.js';
import { zipEntries } from '../support/workbook-xml.js';

/** A seed whose managers read every catalog's language, and two without a catalog (found by trying). */
const SEED = 123;
const DEFINITION = 'weekly-divisions';
/** The definition's language: not English, so a reader who falls back to it is told from an English one. */
const DEFINITION_LANG: ReportLanguage = 'de';
/** The sandbox's last four weeks end on 2024-03-31 (test/support/sandbox.ts). */
const WEEK_BEFORE = { from: '2024-03-18', to: '2024-03-24' } as const;
const WEEK = { from: '2024-03-25', to: '2024-03-31' } as const;

const DEFINITIONS_FILE = [
  'exports:',
  `  - name: ${DEFINITION}`,
  '    period: last-week',
  '    formats: [csv, xlsx]',
  `    lang: ${DEFINITION_LANG}`,
  '    split: division',
  '    deliver:',
  '      email: { to: division-managers, attach: [csv, xlsx] }',
  '',
].join('\n');

interface Manager {
  readonly id: number;
  readonly login: string;
  readonly active: boolean;
  readonly inviteAccepted: boolean;
  readonly lang?: string | null;
}

interface WeekRun {
  readonly result: ExportJobResult;
  readonly manifest: Manifest;
  readonly report: MailDeliveryReport;
  readonly mails: readonly ReceivedMail[];
  /** Reads of the upstream's report during the export, and during its mail. */
  readonly reportReads: { readonly export: number; readonly mail: number };
}

let redis: RedisServer;
let sandbox: RunningSandbox;
let smtp: SmtpReceiver;
let harness: Harness | undefined;
let folder: string;
/** Each eligible manager's login (lower case) -> division id and upstream lang. */
const managers = new Map<string, { readonly division: number; readonly lang: string | null | undefined }>();
const divisionNames = new Map<number, string>();
let weekBefore: WeekRun;
let week: WeekRun;

beforeAll(async () => {
  [redis, sandbox, smtp] = await Promise.all([
    startRedisServer(),
    startTestSandbox({ seed: SEED }),
    startSmtpReceiver(),
  ]);
  folder = mkdtempSync(join(tmpdir(), 'division-mail-languages-'));
  const file = join(folder, 'exports.yaml');
  writeFileSync(file, DEFINITIONS_FILE);

  const response = await fetch(`${sandbox.url}/v1/orgstruct/divisions?fields=dirs`, {
    headers: { authorization: `Bearer ${SANDBOX_READER_TOKEN}` },
  });
  const divisions = (await response.json()) as { id: number; name: string; dirs?: Manager[] }[];
  for (const division of divisions) {
    divisionNames.set(division.id, division.name);
    for (const m of division.dirs ?? [])
      if (eligible(m)) managers.set(m.login.toLowerCase(), { division: division.id, lang: m.lang });
  }

  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: { EXPORTS_FILE: file, SMTP_URL: smtp.url, SMTP_FROM: 'Reports <reports@example.com>' },
  });
  const running = await harness.startWorker();
  if (running.notifyWorker === undefined) throw new Error('no notification worker');
  weekBefore = await runWeek(harness, running.notifyWorker, WEEK_BEFORE);
  week = await runWeek(harness, running.notifyWorker, WEEK);
}, 240_000);

afterAll(async () => {
  await harness?.stop();
  await Promise.all([redis?.stop(), sandbox?.close(), smtp?.close()]);
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

/** A manager who may get mail: active, invite accepted, a login that is an address. */
function eligible(m: Manager): boolean {
  return m.active && m.inviteAccepted && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(m.login);
}

/**
 * The language a manager reads, by the rule the docs give (not the product's code): the catalog of
 * their language (ru_RU -> ru, pt_BR -> pt-BR, en_GB -> en), else the definition's.
 */
function languageOf(lang: string | null | undefined): ReportLanguage {
  const catalogs: Record<string, ReportLanguage> = { en: 'en', ru: 'ru', de: 'de', pt: 'pt-BR' };
  return catalogs[/^([a-z]{2})_[A-Z]{2}$/.exec(lang ?? '')?.[1] ?? ''] ?? DEFINITION_LANG;
}

/** Exports `period` as `enqueue --export` would, waits for it and for its e-mail job. */
async function runWeek(h: Harness, notifyWorker: Worker, period: Period): Promise<WeekRun> {
  const sent = smtp.messages.length;
  const before = sandbox.requestCount('wfm_timers');
  const set = await requireExportDefinitions({ schedule: h.schedule, exportConfig: h.exportConfig });
  const [planned] = definitionExports(requireDefinition(set, DEFINITION), [period]);
  if (planned === undefined) throw new Error('no export planned');
  const data = exportJobData(period.from, period.to, planned.formats, planned.dest, planned.definition);
  const { jobId } = await enqueueExport(h.producer.queue, data);
  const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
  if (outcome.state !== 'completed') throw new Error(`the export failed: ${outcome.reason}`);
  const result = readExportJobResult(outcome.returnValue);
  if (result === undefined) throw new Error('not an export result');
  const exported = sandbox.requestCount('wfm_timers');
  const job = await h.producer.queue.getJob(jobId);
  if (job === undefined) throw new Error(`no export job ${jobId}`);
  const report = await mailReport(h, result, exportRunOf(job), notifyWorker);
  return {
    result,
    manifest: JSON.parse(readFileSync(join(result.location, 'manifest.json'), 'utf8')) as Manifest,
    report,
    mails: smtp.messages.slice(sent),
    reportReads: { export: exported - before, mail: sandbox.requestCount('wfm_timers') - exported },
  };
}

/** The result of the e-mail job of `result`'s export, once it has finished. */
async function mailReport(
  h: Harness,
  result: ExportJobResult,
  run: string,
  worker: Worker,
): Promise<MailDeliveryReport> {
  const job = await finishedMailJob(h, worker, {
    definition: DEFINITION,
    export_id: result.export_id,
    export_run: run,
  });
  expect(await job.getState(), String(job.failedReason)).toBe('completed');
  return job.returnvalue as MailDeliveryReport;
}

/** The division whose managers a mail went to (all of one division). */
function divisionOf(mail: ReceivedMail): number {
  const ids = new Set(mail.envelopeTo.map((a) => managers.get(a.toLowerCase())?.division));
  expect(ids.size, mail.envelopeTo.join(', ')).toBe(1);
  const [id] = ids;
  if (id === undefined) throw new Error(`a mail to someone who is no manager: ${mail.envelopeTo.join(', ')}`);
  return id;
}

/** The language all of a mail's readers read. */
function languageOfMail(mail: ReceivedMail): ReportLanguage {
  const languages = new Set(mail.envelopeTo.map((a) => languageOf(managers.get(a.toLowerCase())?.lang)));
  expect(languages.size, mail.envelopeTo.join(', ')).toBe(1);
  return [...languages][0] as ReportLanguage;
}

/** How each language writes a decimal and a percentage (CLDR, as the docs show it). */
const DECIMAL_COMMA: Record<ReportLanguage, boolean> = { en: false, ru: true, de: true, 'pt-BR': true };
const PERCENT_SIGN: Record<ReportLanguage, string> = { en: '%', ru: '\u00a0%', de: '\u00a0%', 'pt-BR': '%' };

/**
 * A share of the manifest (four decimals) in tenths of a percent, as a reader's figure rounds it:
 * half away from zero, on the decimal the manifest wrote, never on a binary product's noise.
 */
function tenthsOfPercent(share: number): number {
  const basisPoints = Math.round(share * 10_000);
  return Math.sign(basisPoints) * Math.round(Math.abs(basisPoints) / 10);
}

/** Tenths as the reader writes a number with one decimal: 73.6 / 73,6 / -2,3. */
function oneDecimal(tenths: number, lang: ReportLanguage): string {
  const abs = Math.abs(tenths);
  const text = `${tenths < 0 ? '-' : ''}${Math.floor(abs / 10)}.${abs % 10}`;
  return DECIMAL_COMMA[lang] ? text.replace('.', ',') : text;
}

/** A share as the reader writes a rate: 73.6% / 73,6 %. */
function rateText(share: number, lang: ReportLanguage): string {
  return `${oneDecimal(tenthsOfPercent(share), lang)}${PERCENT_SIGN[lang]}`;
}

/** The change of a share in percentage points, signed, one decimal, with the catalog's unit. */
function pointsText(now: number, before: number, lang: ReportLanguage): string {
  const tenths = tenthsOfPercent(Math.round(now * 10_000) / 10_000 - Math.round(before * 10_000) / 10_000);
  const signed = `${tenths > 0 ? '+' : ''}${oneDecimal(tenths, lang)}`;
  return mailMessages(lang).percentPoints.replace('{points}', signed);
}

/** A division's statistics in a manifest. */
function statisticsOf(manifest: Manifest, division: number): Readonly<Record<string, number | null>> {
  const found = manifest.divisions?.find((d) => d.division_id === division)?.statistics;
  if (found === undefined) throw new Error(`no statistics of division ${division} in ${manifest.export_id}`);
  return found;
}

function attachment(mail: ReceivedMail, suffix: string) {
  const found = mail.parsed.attachments.filter((a) => a.filename?.endsWith(suffix) === true);
  expect(found, suffix).toHaveLength(1);
  return found[0]!;
}

describe('the division managers’ weekly mail, each in its reader’s language', () => {
  it('has readers of every catalog’s language and of languages without one (else the test proves nothing)', () => {
    const read = [...managers.values()].map((m) => languageOf(m.lang));
    expect(new Set(read)).toEqual(new Set(['en', 'ru', 'de', 'pt-BR']));
    const without = [...managers.values()].filter((m) => !/^(en|ru|de|pt)_/.test(m.lang ?? ''));
    expect(without.map((m) => m.lang).sort()).toEqual(['hi_IN', 'kk_KZ']);
  });

  it('reads the upstream report once per export, and not at all to write the mail', () => {
    expect(weekBefore.reportReads).toEqual({ export: 1, mail: 0 });
    expect(week.reportReads).toEqual({ export: 1, mail: 0 });
  });

  it('sends every eligible manager one mail a week, one message per division and language', () => {
    for (const run of [weekBefore, week]) {
      const received = run.mails.flatMap((m) => m.envelopeTo.map((a) => a.toLowerCase()));
      expect(received.sort()).toEqual([...managers.keys()].sort());
      const expected = new Set([...managers.values()].map((m) => `${m.division}/${languageOf(m.lang)}`));
      expect(run.mails.map((m) => `${divisionOf(m)}/${languageOfMail(m)}`).sort()).toEqual(
        [...expected].sort(),
      );
      expect(run.report.messages.map((m) => `${m.division_id}/${m.lang}`).sort()).toEqual(
        [...expected].sort(),
      );
      expect(run.report.messages.every((m) => m.status === 'sent')).toBe(true);
    }
  });

  it('writes each mail in its readers’ language: Content-Language, <html lang> and the catalog’s words', () => {
    for (const mail of week.mails) {
      const lang = languageOfMail(mail);
      const words = mailMessages(lang);
      expect(mail.parsed.headers.get('content-language')).toBe(lang);
      expect(mail.parsed.html).toMatch(new RegExp(`<html lang="${lang}"`));
      const division = divisionOf(mail);
      expect(mail.parsed.subject).toContain(`${DEFINITION}: ${divisionNames.get(division)} (${division}), `);
      for (const text of [mail.parsed.text ?? '', mail.parsed.html || '']) {
        expect(text).toContain(words.headlineHeading);
        expect(text).toContain(words.labels.startMatchRate);
        expect(text).toContain(words.regionsHeading);
        expect(text).toContain(words.shopsHeading);
      }
      // A word of every other catalog is absent: no text fell back to another language.
      for (const other of ['en', 'ru', 'de', 'pt-BR'] as const)
        if (other !== lang) expect(mail.parsed.text).not.toContain(mailMessages(other).headlineHeading);
    }
  });

  it('writes the figures the reader’s way and compares them with the week before in percentage points', () => {
    for (const mail of week.mails) {
      const lang = languageOfMail(mail);
      const words = mailMessages(lang);
      const division = divisionOf(mail);
      const now = statisticsOf(week.manifest, division);
      const before = statisticsOf(weekBefore.manifest, division);
      for (const [label, key] of [
        [words.labels.startMatchRate, 'start_match_rate'],
        [words.labels.finishMatchRate, 'finish_match_rate'],
      ] as const) {
        const [rate, was] = [now[key], before[key]];
        if (rate == null || was == null) throw new Error(`division ${division} has no ${key}`);
        expect(mail.parsed.text).toContain(
          `${label}: ${rateText(rate, lang)} (${pointsText(rate, was, lang)})`,
        );
        expect(mail.parsed.html).toContain(rateText(rate, lang));
      }
      expect(mail.parsed.text).toContain(`${words.labels.shifts}: ${now['shifts']}`);
      // The sentence that names the previous period: 18–24 March in the reader's words.
      const [head, tail] = words.comparedWith.split('{period}') as [string, string];
      const compared = new RegExp(`${escape(head)}(.+?)${escape(tail)}`).exec(mail.parsed.text ?? '');
      expect(compared?.[1], lang).toMatch(/18\D+24\D+(?:03\D+)?2024|2024\D+18\D+24/);
      // No rate is written with the other decimal separator.
      expect(mail.parsed.text).not.toMatch(DECIMAL_COMMA[lang] ? /\d\.\d\s?%/ : /\d,\d\s?%/);
    }
  });

  it('told the week before’s readers there was nothing to compare with yet, in their language', () => {
    for (const mail of weekBefore.mails)
      expect(mail.parsed.text).toContain(mailMessages(languageOfMail(mail)).firstExport);
  });

  it('gives a manager whose language has no catalog the definition’s language, and says so in the job result', () => {
    const fallbacks = [...managers].filter(([, m]) => !/^(en|ru|de|pt)_/.test(m.lang ?? ''));
    expect(fallbacks).toHaveLength(2);
    for (const [login, manager] of fallbacks) {
      const mails = week.mails.filter((m) => m.envelopeTo.some((a) => a.toLowerCase() === login));
      expect(mails).toHaveLength(1);
      expect(mails[0]?.parsed.headers.get('content-language')).toBe(DEFINITION_LANG);
      expect(mails[0]?.parsed.text).toContain(mailMessages(DEFINITION_LANG).headlineHeading);
      // The definition's workbook, shifts.xlsx, not one named for another language.
      expect(attachment(mails[0]!, '.xlsx').filename).toBe(
        `${DEFINITION}_${WEEK.from}_${WEEK.to}_shifts.xlsx`,
      );
      expect(week.report.language_fallbacks).toContainEqual(
        expect.objectContaining({
          division_id: manager.division,
          reason: 'no_catalog',
          asked: manager.lang?.replace('_', '-'),
        }),
      );
    }
    expect(week.report.language_fallbacks).toHaveLength(2);
  });

  it("attaches the division's workbook in the reader's language, every row of it the division's", async () => {
    for (const mail of week.mails) {
      const lang = languageOfMail(mail);
      const division = divisionOf(mail);
      const words = workbookMessages(lang);
      const file = attachment(mail, '.xlsx');
      const name = lang === DEFINITION_LANG ? 'shifts.xlsx' : `shifts.${lang}.xlsx`;
      expect(file.filename).toBe(`${DEFINITION}_${WEEK.from}_${WEEK.to}_${name}`);
      expect(zipEntries(file.content).get('docProps/core.xml')?.toString()).toContain(
        `<dc:language>${lang}</dc:language>`,
      );

      const workbook = await readWorkbook(file.content);
      const names = workbook.worksheets.map((w) => w.name);
      expect(names[0]).toBe(words.sheets.overview);
      expect(names).toContain(words.sheets.shifts);
      expect(names).toContain(words.sheets.about);
      // The Overview, in the same words, compares with the week before as the mail does.
      const overview = sheet(workbook, words.sheets.overview);
      const overviewRows = Array.from({ length: overview.rowCount }, (_, i) => rowValues(overview, i + 1));
      const labelled = (label: string) => overviewRows.find((values) => values[0] === label) ?? [];
      expect(String(labelled(words.overview.comparedWith)[1])).toContain(
        words.overview.comparedWithValue.split('{period}')[0],
      );
      const [now, before] = [week, weekBefore].map(
        (run) => statisticsOf(run.manifest, division)['start_match_rate'],
      );
      expect(labelled(words.overview.startMatchRate)[2]).toBeCloseTo(
        ((now ?? NaN) - (before ?? NaN)) * 100,
        6,
      );

      const shifts = sheet(workbook, words.sheets.shifts);
      const header = rowValues(shifts, 1);
      const column = header.indexOf(words.headers.division_id);
      expect(column, header.join(' | ')).toBeGreaterThanOrEqual(0);
      const ids: unknown[] = [];
      for (let row = 2; row <= shifts.rowCount; row++) ids.push(rowValues(shifts, row)[column]);
      expect(ids.length).toBe(statisticsOf(week.manifest, division)['shifts']);
      expect(new Set(ids)).toEqual(new Set([division]));
    }
  });

  it("attaches the division's CSV files alone, their column names and values untranslated", () => {
    const prefix = `${DEFINITION}_${WEEK.from}_${WEEK.to}_`;
    for (const mail of week.mails) {
      const division = divisionOf(mail);
      const shifts = statisticsOf(week.manifest, division)['shifts'];
      const csv = new Map(
        mail.parsed.attachments
          .filter((a) => a.filename?.endsWith('.csv') === true)
          .map((a) => [
            a.filename?.replace(prefix, ''),
            parseCsv(a.content, { bom: true, columns: true }) as Record<string, string>[],
          ]),
      );
      expect([...csv.keys()].sort()).toEqual([
        'shifts.csv',
        'summary_by_day.csv',
        'summary_by_division.csv',
        'summary_by_region.csv',
        'summary_by_shop.csv',
        'summary_by_user.csv',
      ]);
      const read = (name: string): Record<string, string>[] => csv.get(name) ?? [];
      const column = (name: string, key: string): Set<string | undefined> =>
        new Set(read(name).map((r) => r[key]));
      const total = (name: string): number => read(name).reduce((sum, r) => sum + Number(r['shifts']), 0);

      // The rows: every shift is this division's, under the column names automation reads.
      expect(Object.keys(read('shifts.csv')[0] ?? {}).slice(0, 2)).toEqual(['shift_id', 'business_date']);
      expect(read('shifts.csv')).toHaveLength(shifts ?? NaN);
      expect(column('shifts.csv', 'division_id')).toEqual(new Set([String(division)]));
      // The summaries: this division's regions, shops, people and days, and nothing more.
      expect(column('summary_by_division.csv', 'division_id')).toEqual(new Set([String(division)]));
      expect(column('summary_by_region.csv', 'division_id')).toEqual(new Set([String(division)]));
      expect(column('summary_by_shop.csv', 'shop_id')).toEqual(column('shifts.csv', 'shop_id'));
      expect(column('summary_by_user.csv', 'user_id')).toEqual(column('shifts.csv', 'user_id'));
      for (const name of ['summary_by_division.csv', 'summary_by_region.csv', 'summary_by_shop.csv'])
        expect(total(name), name).toBe(shifts);
      // By day: each day's line of all divisions comes first, and counts this division's shifts alone.
      expect(column('summary_by_day.csv', 'division_id')).toEqual(new Set(['', String(division)]));
      const days = read('summary_by_day.csv');
      for (const line of days.filter((r) => r['division_id'] === ''))
        expect(line['shifts'], line['business_date']).toBe(
          days.find((r) => r['business_date'] === line['business_date'] && r['division_id'] !== '')?.[
            'shifts'
          ],
        );
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
