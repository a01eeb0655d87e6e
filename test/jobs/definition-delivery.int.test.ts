// Delivery of export definitions end to end, with real parts: a real redis-server, the sandbox over
// HTTP (its divisions' managers include an inactive one, an invite not accepted, a login that is no
// address and a first name with CR/LF and a Bcc line), a real SMTP server and a webhook receiver on
// 127.0.0.1, an in-process worker given an EXPORTS_FILE, and the built CLI for `worker` and
// `run --export`. Nothing tells the worker who gets mail but the file: each export job names its
// definition, and the worker finds its deliver.email and deliver.webhook in the definitions in force.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job, Worker } from 'bullmq';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { definitionExports, requireDefinition } from '../../src/definitions/definition-exports.js';
import { requireExportDefinitions } from '../../src/definitions/load-export-definitions.js';
import { exportRunOf } from '../../src/queue/export-run.js';
import { finishedMailJob } from '../queue/support/finished-mail-job.js';
import { openNotificationQueue } from '../../src/notify/notification-queue.js';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult, type ExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { MAIL_JOB_NAME } from '../../src/queue/queue-names.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startHarness, type Harness } from '../queue/support/queue-harness.js';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { tempFolderForTest } from '../support/temp-folder.js';
import { zipEntries } from '../support/workbook-xml.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { chooseLanguage } from '../../src/i18n/report-language.js';

const DAY = '2024-03-30';

let redis: RedisServer;
let sandbox: RunningSandbox;
let smtp: SmtpReceiver;
let receiver: WebhookReceiver;
let harness: Harness | undefined;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

beforeEach(async () => {
  [smtp, receiver] = await Promise.all([startSmtpReceiver(), startWebhookReceiver()]);
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await Promise.all([smtp.close(), receiver.close()]);
});

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** The definitions of these tests: a fixed address with its own webhook, `when: changed`, managers. */
function definitionsFile(hook: string): string {
  return yaml(
    'exports:',
    '  - name: hq-daily',
    '    period: yesterday',
    '    formats: [csv, xlsx]',
    '    deliver:',
    '      email: { to: [hq@example.com], attach: [xlsx] }',
    `      webhook: ${hook}`,
    '  - name: hq-changed',
    '    period: yesterday',
    '    formats: [csv, xlsx]',
    '    deliver:',
    '      email: { to: [controlling@example.com], when: changed }',
    '  - name: managers-weekly',
    '    period: last-week',
    '    formats: [csv, xlsx]',
    '    split: division',
    '    deliver:',
    '      email: { to: division-managers, attach: [csv, xlsx] }',
  );
}

function writeFile(text: string): string {
  const file = join(tempFolderForTest('definition-delivery-'), 'exports.yaml');
  writeFileSync(file, text);
  return file;
}

async function open(file: string, env: Record<string, string> = {}): Promise<Harness> {
  harness = await startHarness({
    redisUrl: redis.url,
    sandboxUrl: sandbox.url,
    env: {
      EXPORTS_FILE: file,
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Reports <reports@example.com>',
      NOTIFY_BACKOFF_MS: '100',
      ...env,
    },
  });
  return harness;
}

/** Queues the export of DAY as `enqueue --export NAME` would (its formats, dest and name), and waits. */
function exportOf(h: Harness, name: string, rerun = false): Promise<JobExport> {
  return exportPeriodOf(h, name, { from: DAY, to: DAY }, rerun);
}

/** Queues the export of `period` as `enqueue --export NAME` would, and waits. */
async function exportPeriodOf(
  h: Harness,
  name: string,
  period: { readonly from: string; readonly to: string },
  rerun = false,
): Promise<JobExport> {
  const set = await requireExportDefinitions({ schedule: h.schedule, exportConfig: h.exportConfig });
  const [planned] = definitionExports(requireDefinition(set, name), [period]);
  if (planned === undefined) throw new Error('no export planned');
  const data = exportJobData(period.from, period.to, planned.formats, planned.dest, planned.definition);
  const { jobId } = await enqueueExport(h.producer.queue, data, rerun ? { force: true } : {});
  const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
  if (outcome.state !== 'completed') throw new Error(`the export failed: ${outcome.reason}`);
  const result = readExportJobResult(outcome.returnValue);
  if (result === undefined) throw new Error('not an export result');
  const job = await h.producer.queue.getJob(jobId);
  if (job === undefined) throw new Error(`no export job ${jobId}`);
  return { ...result, run: exportRunOf(job) };
}

/** An export job's result, with the job's run (the e-mail job is named after it). */
type JobExport = ExportJobResult & { readonly run: string };

/** The e-mail job of `result`'s export of `definition`, once finished. */
async function mailJob(h: Harness, definition: string, result: JobExport, worker: Worker): Promise<Job> {
  const job = await finishedMailJob(h, worker, {
    definition,
    export_id: result.export_id,
    export_run: result.run,
  });
  expect(await job.getState()).toBe('completed');
  return job;
}

function notifyWorkerOf(running: { notifyWorker: Worker | undefined }): Worker {
  if (running.notifyWorker === undefined) throw new Error('no notification worker');
  return running.notifyWorker;
}

describe('the worker delivers what the definitions file asks', () => {
  it("mails a fixed address's export once with the workbook attached, and a retried job sends nothing twice", async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    const notifyWorker = notifyWorkerOf(await h.startWorker());
    const result = await exportOf(h, 'hq-daily');
    const job = await mailJob(h, 'hq-daily', result, notifyWorker);

    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail?.envelopeTo).toEqual(['hq@example.com']);
    const workbook = result.files.find((f) => f.name === 'shifts.xlsx');
    expect(mail?.parsed.attachments.map((a) => a.filename)).toEqual([`hq-daily_${DAY}_${DAY}_shifts.xlsx`]);
    const attached = mail?.parsed.attachments[0]?.content;
    expect(attached?.length).toBe(workbook?.bytes);
    expect(attached?.equals(readFileSync(join(result.location, 'shifts.xlsx')))).toBe(true);
    expect(mail?.parsed.subject).toContain('hq-daily');

    // Run again from the start, as a retry after the server accepted would: nothing is sent twice.
    const again = new Promise<Job>((resolve) =>
      notifyWorker.on('completed', (j: Job) => j.id === job.id && resolve(j)),
    );
    await job.retry('completed');
    expect((await again).returnvalue).toMatchObject({ messages: [{ status: 'already_sent' }], pending: 0 });
    expect(smtp.messages).toHaveLength(1);

    // The definition's own webhook (no NOTIFY_WEBHOOK_URL is set) hears of it, by name.
    await expect.poll(() => receiver.accepted().map((r) => r.json()['event'])).toContain('export.published');
    expect(receiver.accepted().map((r) => r.json())).toEqual([
      expect.objectContaining({
        event: 'export.published',
        definition: 'hq-daily',
        export_id: result.export_id,
        text: expect.stringMatching(/^shift-export hq-daily: /) as unknown,
      }),
    ]);
    expect(receiver.accepted()[0]?.url).toBe('/hooks/hq-daily');
  });

  it('sends a `when: changed` mail for the first export, and nothing for an unchanged re-run', async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    const notifyWorker = notifyWorkerOf(await h.startWorker());
    const first = await exportOf(h, 'hq-changed');
    await mailJob(h, 'hq-changed', first, notifyWorker);
    expect(smtp.messages.map((m) => m.envelopeTo)).toEqual([['controlling@example.com']]);

    const second = await exportOf(h, 'hq-changed', true);
    expect(second.export_id).not.toBe(first.export_id);
    const job = await mailJob(h, 'hq-changed', second, notifyWorker);
    expect(job.returnvalue).toMatchObject({ messages: [], unchanged: [null], pending: 0 });
    expect(smtp.messages).toHaveLength(1);
    // hq-changed has no webhook of its own and NOTIFY_WEBHOOK_URL is unset: no event is queued.
    const queue = openNotificationQueue(h.producer.connection, {
      prefix: h.prefix,
      attempts: 1,
      backoffMs: 0,
    });
    try {
      const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
      expect(jobs.map((j) => j.name).sort()).toEqual([MAIL_JOB_NAME, MAIL_JOB_NAME]);
    } finally {
      await queue.close();
    }
  });

  it("tells the definition's webhook of its export that failed for good, by name", async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    await h.startWorker();
    // A period that ends before it starts: a terminal failure, on the first attempt.
    const data = exportJobData(DAY, '2024-03-29', ['csv'], join(h.dest, 'hq-daily'), 'hq-daily');
    const { jobId } = await enqueueExport(h.producer.queue, data);
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('failed');
    const [request] = await receiver.waitFor(1);
    expect(request?.json()).toMatchObject({
      event: 'export.failed',
      definition: 'hq-daily',
      error: { code: 'REQUEST_INVALID' },
    });
    expect(smtp.messages).toHaveLength(0);
  });

  it('queues no e-mail and no event for an export that names no definition', async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    await h.startWorker();
    const { jobId } = await enqueueExport(h.producer.queue, exportJobData(DAY, DAY, ['csv']));
    const outcome = await waitForJob(h.producer.queue, await h.events(), jobId, () => undefined);
    expect(outcome.state).toBe('completed');
    const queue = openNotificationQueue(h.producer.connection, {
      prefix: h.prefix,
      attempts: 1,
      backoffMs: 0,
    });
    try {
      expect(await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed')).toEqual({
        waiting: 0,
        active: 0,
        completed: 0,
        failed: 0,
        delayed: 0,
      });
    } finally {
      await queue.close();
    }
    expect(smtp.messages).toHaveLength(0);
  });
});

describe('a definition that asks for e-mail needs SMTP_URL', () => {
  it('keeps the definitions in force when a SIGHUP brings e-mail to a worker without SMTP_URL', async () => {
    const file = writeFile(yaml('exports:', '  - name: plain', '    period: yesterday'));
    const h = await open(file, { SMTP_URL: '', SMTP_FROM: '' });
    const running = await h.startWorker();
    writeFileSync(file, definitionsFile(`${receiver.origin}/hooks/hq-daily`));
    expect(await running.reloadDefinitions()).toBe(false);
    expect(running.definitions().definitions.map((d) => d.name)).toEqual(['plain']);
    const errors = h.logs.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe(
      'export definitions not reloaded, the schedules in force are kept: SMTP_URL is not set, but the export definitions hq-daily, hq-changed, managers-weekly deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM',
    );
  });

  it('stops `worker` before Redis and `run --export` before the export: exit 2, one line', async () => {
    const file = writeFile(definitionsFile('http://127.0.0.1:1/hooks/x'));
    const env = cliEnv({
      EXPORTS_FILE: file,
      REDIS_URL: 'redis://127.0.0.1:1',
      EXPORT_DEST: tempFolderForTest('definition-delivery-dest-'),
      WFM_BASE_URL: sandbox.url,
      WFM_TOKEN: SANDBOX_READER_TOKEN,
    });
    const line =
      'SMTP_URL is not set, but the export definitions hq-daily, hq-changed, managers-weekly deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM';
    const worker = await runCli(['worker'], env);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toBe(`shift-export worker: CONFIG_INVALID: ${line}\n`);
    const run = await runCli(['run', '--export', 'hq-daily', '--date', '2024-03-31'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'shift-export run: CONFIG_INVALID: SMTP_URL is not set, but the export definitions hq-daily deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM\n',
    );
  });
});

describe('run --export', () => {
  it('mails the period right after it published and tells the definition its webhook, by name', async () => {
    const file = writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`));
    const dest = tempFolderForTest('definition-delivery-run-');
    const run = await runCli(
      ['run', '--export', 'hq-daily', '--date', '2024-03-31'],
      cliEnv({
        EXPORTS_FILE: file,
        EXPORT_DEST: dest,
        WFM_BASE_URL: sandbox.url,
        WFM_TOKEN: SANDBOX_READER_TOKEN,
        SMTP_URL: smtp.url,
        SMTP_FROM: 'reports@example.com',
      }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]?.envelopeTo).toEqual(['hq@example.com']);
    expect(smtp.messages[0]?.parsed.attachments.map((a) => a.filename)).toEqual([
      `hq-daily_${DAY}_${DAY}_shifts.xlsx`,
    ]);
    expect(receiver.accepted().map((r) => r.json())).toEqual([
      expect.objectContaining({ event: 'export.published', definition: 'hq-daily', job_id: null }),
    ]);
  });
});

/** The week `managers-weekly` exports when it runs on Monday 2024-04-01 (the sandbox ends on 03-31). */
const WEEK = { from: '2024-03-25', to: '2024-03-31' } as const;

interface SandboxManager {
  readonly id: number;
  readonly login: string;
  readonly firstName: string;
  readonly active: boolean;
  readonly inviteAccepted: boolean;
  readonly lang?: string | null;
}

/** The sandbox's divisions with their managers, as the upstream serves them (fields=dirs). */
async function sandboxDivisions(): Promise<Map<number, readonly SandboxManager[]>> {
  const response = await fetch(`${sandbox.url}/v1/orgstruct/divisions?fields=dirs`, {
    headers: { authorization: `Bearer ${SANDBOX_READER_TOKEN}` },
  });
  expect(response.status).toBe(200);
  const list = (await response.json()) as { id: number; dirs: SandboxManager[] }[];
  return new Map(list.map((d) => [d.id, d.dirs]));
}

/** Requests the sandbox has answered on its wfm_timers report (GET /_sandbox/stats). */
async function reportRequests(): Promise<number> {
  const response = await fetch(`${sandbox.url}/_sandbox/stats`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { requests: { wfm_timers: number } }).requests.wfm_timers;
}

/** A manager who may get mail: active, invite accepted, a login that is an address. */
const eligible = (m: SandboxManager): boolean =>
  m.active && m.inviteAccepted && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(m.login);

/** The shift ids, user logins and display names of a division's published shifts.csv. */
function peopleOf(location: string, divisionId: number): Set<string> {
  const rows = parseCsv(readFileSync(join(location, 'divisions', String(divisionId), 'shifts.csv')), {
    bom: true,
    columns: true,
  }) as Record<string, string>[];
  expect(rows.length).toBeGreaterThan(0);
  const values = new Set<string>();
  for (const row of rows)
    for (const column of ['shift_id', 'user_login', 'user_display_name']) {
      const value = row[column];
      if (value !== undefined && value !== '') values.add(value);
    }
  return values;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Every cell and text value of a workbook's XML parts (sheets, shared strings, charts). */
function workbookValues(workbook: Buffer): string[] {
  const values: string[] = [];
  for (const [name, bytes] of zipEntries(workbook)) {
    if (!name.endsWith('.xml')) continue;
    for (const match of bytes.toString('utf8').matchAll(/<(?:\w+:)?(?:t|v)(?:\s[^>]*)?>([^<]*)</g))
      values.push(
        (match[1] ?? '').replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity: string, body: string) =>
          body.startsWith('#x') || body.startsWith('#X')
            ? String.fromCodePoint(parseInt(body.slice(2), 16))
            : body.startsWith('#')
              ? String.fromCodePoint(Number(body.slice(1)))
              : (XML_ENTITIES[body] ?? entity),
        ),
      );
  }
  return values;
}

/** The header lines of a raw message, unfolded as they were sent (continuations kept apart). */
function headerLines(raw: string): string[] {
  const end = raw.indexOf('\r\n\r\n');
  return (end < 0 ? raw : raw.slice(0, end)).split(/\r\n/);
}

describe('division managers', () => {
  it("mails each eligible manager once with their division's files alone, skips the others with reasons, reads the report once", async () => {
    const h = await open(writeFile(definitionsFile(`${receiver.origin}/hooks/hq-daily`)));
    const notifyWorker = notifyWorkerOf(await h.startWorker());
    const requestsBefore = await reportRequests();
    const result = await exportPeriodOf(h, 'managers-weekly', WEEK);
    // One split export, one read of the upstream's report, however many divisions it wrote.
    expect((await reportRequests()) - requestsBefore).toBe(1);
    const job = await mailJob(h, 'managers-weekly', result, notifyWorker);

    const manifest = JSON.parse(readFileSync(join(result.location, 'manifest.json'), 'utf8')) as {
      files: { path: string; sha256: string; division_id?: number; lang?: string }[];
      divisions: { division_id: number }[];
    };
    const exported = manifest.divisions.map((d) => d.division_id);
    expect(exported.length).toBeGreaterThan(1);
    const upstream = await sandboxDivisions();

    // Who should get what: each exported division's eligible managers; the others, with a reason.
    const divisionOf = new Map<string, number>();
    const expectedSkips: { division_id: number; manager_id: number | null; reason: string }[] = [];
    for (const id of exported) {
      // A division none of whose managers can get mail is named too (the sandbox has one).
      if (!(upstream.get(id) ?? []).some(eligible))
        expectedSkips.push({ division_id: id, manager_id: null, reason: 'no_recipient' });
      for (const m of upstream.get(id) ?? []) {
        if (eligible(m)) {
          expect(divisionOf.get(m.login.toLowerCase()), `${m.login} manages two divisions`).toBeUndefined();
          divisionOf.set(m.login.toLowerCase(), id);
        } else {
          const reason = !m.active
            ? 'inactive'
            : !m.inviteAccepted
              ? 'invite_not_accepted'
              : 'login_not_an_address';
          expectedSkips.push({ division_id: id, manager_id: m.id, reason });
        }
      }
    }
    // The sandbox's roster puts each kind of manager who gets nothing in the exported week.
    expect(new Set(expectedSkips.filter((s) => s.manager_id !== null).map((s) => s.reason))).toEqual(
      new Set(['inactive', 'invite_not_accepted', 'login_not_an_address']),
    );
    const hostile = [...exported]
      .flatMap((id) => upstream.get(id) ?? [])
      .find((m) => /\r\n/.test(m.firstName));
    expect(hostile, 'the manager whose first name carries CR/LF and a Bcc line').toBeDefined();
    expect(eligible(hostile as SandboxManager)).toBe(true);

    // The job's result and the log name every manager left out, with the reason.
    const report = job.returnvalue as {
      messages: { division_id: number | null; status: string }[];
      skipped: { division_id: number | null; manager_id: number | null; reason: string }[];
    };
    const skipKey = (s: { division_id: number | null; manager_id: number | null; reason: string }) =>
      `${s.division_id}/${s.manager_id}/${s.reason}`;
    expect(report.skipped.map(skipKey).sort()).toEqual(expectedSkips.map(skipKey).sort());
    const logged = h.logs.filter((l) => l.msg === 'no delivery e-mail for this recipient');
    expect(logged.map((l) => skipKey(l as never)).sort()).toEqual(expectedSkips.map(skipKey).sort());

    // Every eligible manager got exactly one mail, and each mail went to one division's managers.
    const received = smtp.messages.flatMap((m) => m.envelopeTo.map((a) => a.toLowerCase()));
    expect(received.sort()).toEqual([...divisionOf.keys()].sort());
    // One message per division and language its eligible managers read (the definition's: en).
    const languageOf = new Map(
      [...exported]
        .flatMap((id) => upstream.get(id) ?? [])
        .filter(eligible)
        .map((m) => [m.login.toLowerCase(), chooseLanguage(m.lang, 'en').language] as const),
    );
    const messageKeys = new Set([...divisionOf].map(([login, id]) => `${id}/${languageOf.get(login)}`));
    expect(smtp.messages).toHaveLength(messageKeys.size);
    expect(report.messages.map((m) => m.division_id).sort()).toEqual(
      [...messageKeys].map((key) => Number(key.split('/')[0])).sort(),
    );
    expect(received).not.toContain('intruder@evil.example');

    const people = new Map(exported.map((id) => [id, peopleOf(result.location, id)]));
    let hostileMailed = false;
    for (const mail of smtp.messages) {
      const ids = new Set(mail.envelopeTo.map((a) => divisionOf.get(a.toLowerCase())));
      expect(ids.size).toBe(1);
      const id = [...ids][0] as number;

      // A CR/LF in a name never becomes a header line: no Bcc header, parsed or raw.
      expect(mail.parsed.headers.has('bcc')).toBe(false);
      expect(headerLines(mail.raw).filter((l) => /^\s*bcc/i.test(l))).toEqual([]);
      expect(mail.raw).not.toMatch(/\r\n\s*Bcc:/i);
      if (mail.envelopeTo.some((a) => a.toLowerCase() === hostile?.login.toLowerCase())) {
        // The hostile manager still gets their mail, the name on one line with the Bcc text in it.
        const to = mail.parsed.headers.get('to') as { text: string } | undefined;
        expect(to?.text).toContain(`${hostile?.firstName.split('\r\n')[0]} Bcc: intruder@evil.example`);
        hostileMailed = true;
      }

      // Every reader of a message reads its language, and its workbook is the one in that language.
      const lang = mail.parsed.headers.get('content-language');
      for (const a of mail.envelopeTo) expect(languageOf.get(a.toLowerCase())).toBe(lang);
      const workbook = mail.parsed.attachments.find((a) => a.filename?.endsWith('.xlsx'));
      const workbookSha = createHash('sha256')
        .update(workbook?.content ?? '')
        .digest('hex');
      expect(manifest.files.find((f) => f.sha256 === workbookSha)?.lang).toBe(lang);

      // The attachments are this division's published files (csv and xlsx), byte for byte.
      const own = new Set(manifest.files.filter((f) => f.division_id === id).map((f) => f.sha256));
      expect(mail.parsed.attachments.length).toBeGreaterThanOrEqual(2);
      expect(mail.parsed.attachments.map((a) => a.filename).some((n) => n?.endsWith('.xlsx'))).toBe(true);
      expect(mail.parsed.attachments.map((a) => a.filename).some((n) => n?.endsWith('.csv'))).toBe(true);
      for (const a of mail.parsed.attachments)
        expect(own.has(createHash('sha256').update(a.content).digest('hex')), a.filename).toBe(true);

      // And across every attachment, not one shift id, login or display name of another division.
      const mine = people.get(id) ?? new Set<string>();
      const foreign = new Set(
        [...people].filter(([other]) => other !== id).flatMap(([, v]) => [...v].filter((x) => !mine.has(x))),
      );
      expect(foreign.size).toBeGreaterThan(0);
      for (const a of mail.parsed.attachments) {
        const values = a.filename?.endsWith('.xlsx')
          ? workbookValues(a.content)
          : (parseCsv(a.content, { bom: true }) as string[][]).flat();
        expect(values.length).toBeGreaterThan(0);
        // The reading sees the rows: a shifts file shows its own division's shift ids.
        if (a.filename?.includes('shifts') === true) expect(values.some((v) => mine.has(v))).toBe(true);
        expect(
          values.filter((v) => foreign.has(v)),
          a.filename,
        ).toEqual([]);
        // A foreign login is an address: it shows nowhere, not even inside a longer text.
        const text = values.join('\n');
        expect(
          [...foreign].filter((v) => v.includes('@') && text.includes(v)),
          a.filename,
        ).toEqual([]);
      }
    }
    expect(hostileMailed).toBe(true);
  });
});
