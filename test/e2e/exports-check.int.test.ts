// `shift-export exports check` as an operator (or CI) runs it: the built CLI as a child process,
// EXPORTS_FILE in its environment, stdout and stderr and the exit code as they come.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningSandbox } from 'wfm-sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli, UNREACHABLE_SETTINGS } from '../support/cli.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'exports-check-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

async function check(text: string, extraArgs: readonly string[] = [], settings: Record<string, string> = {}) {
  const file = join(root, 'exports.yaml');
  await writeFile(file, text);
  const env = cliEnv({ EXPORTS_FILE: file, EXPORT_DEST: join(root, 'exports'), ...settings });
  return { file, run: await runCli(['exports', 'check', ...extraArgs], env) };
}

describe('shift-export exports check', () => {
  it('prints each definition with its period rule and next 3 runs in its zone, and exits 0', async () => {
    const { file, run } = await check(
      yaml(
        'exports:',
        '  - name: nightly',
        '    schedule: { cron: "30 2 * * *", tz: Europe/Berlin }',
        '    period: yesterday',
        '    lookback_days: 1',
        '  - name: weekly-by-division',
        '    schedule: { cron: "0 6 * * 1", tz: Europe/Berlin }',
        '    period: last-week',
        '    formats: [xlsx]',
        '    lang: ru',
        '    filter: { divisions: [2, 1] }',
        '    split: division',
        '    deliver:',
        '      email: { to: division-managers, cc: [ops@example.com], when: changed }',
        '      webhook: https://hooks.example.com/T0/B0/secret-path',
        '  - name: monthly',
        '    period: month-to-date',
        '    formats: [parquet]',
      ),
      ['--at', '2026-03-27T12:00:00Z'],
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `${file}: 3 export definitions`,
        '',
        'nightly',
        "  period:     yesterday (the day before the run's date); again the day before it (lookback_days)",
        '  schedule:   30 2 * * * in Europe/Berlin',
        '  next runs:  2026-03-28 02:30 +01:00  2026-03-27, again 2026-03-26',
        '              2026-03-29 03:30 +02:00  2026-03-28, again 2026-03-27',
        '              2026-03-30 02:30 +02:00  2026-03-29, again 2026-03-28',
        '  formats:    csv, xlsx',
        '  language:   en',
        `  dest:       ${join(root, 'exports', 'nightly')}`,
        '',
        'weekly-by-division',
        "  period:     last-week (Monday to Sunday of the week before the run's)",
        '  schedule:   0 6 * * 1 in Europe/Berlin',
        '  next runs:  2026-03-30 06:00 +02:00  2026-03-23..2026-03-29',
        '              2026-04-06 06:00 +02:00  2026-03-30..2026-04-05',
        '              2026-04-13 06:00 +02:00  2026-04-06..2026-04-12',
        '  formats:    xlsx',
        '  language:   ru',
        `  dest:       ${join(root, 'exports', 'weekly-by-division')}`,
        '  filter:     divisions 1, 2',
        '  split:      division',
        '  e-mail:     to division-managers, cc ops@example.com; attach xlsx; when changed',
        '  webhook:    https://hooks.example.com/…',
        '',
        'monthly',
        '  period:     month-to-date (the 1st of the month through yesterday; on the 1st, the whole previous month)',
        '  schedule:   none: on demand only',
        '  a run now:  2026-03-27 12:00 +00:00 (UTC)  2026-03-01..2026-03-26',
        '  formats:    parquet',
        '  language:   en',
        `  dest:       ${join(root, 'exports', 'monthly')}`,
        '',
        "managers' languages: not counted, the upstream is not configured (WFM_BASE_URL and WFM_TOKEN or WFM_TOKEN_FILE); weekly-by-division mails division managers",
        '',
      ].join('\n'),
    );
  });

  it('prints one FILE:LINE:COLUMN line per problem on stderr, nothing on stdout, and exits 2', async () => {
    const { file, run } = await check(
      yaml(
        'exports:',
        '  - name: nightly',
        '    schedule: { cron: "0 3 * * *", tz: Mars/Olympus }',
        '    period: yesterday',
        '    lang: kk',
        '  - name: weekly',
        '    period: last-week',
        '    lookback_days: 2',
        '    deliver: { email: { to: division-managers } }',
      ),
    );
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      [
        `${file}:3:40: exports[0].schedule.tz: "Mars/Olympus" is not an IANA time zone such as Europe/Berlin`,
        `${file}:5:11: exports[0].lang: "kk" is not a report language (expected en, ru, de, pt-BR)`,
        `${file}:8:20: exports[1].lookback_days: only a period of yesterday looks back (this one is last-week)`,
        `${file}:9:29: exports[1].deliver.email.to: division-managers needs split: division (each division's files go to its own managers)`,
        '',
      ].join('\n'),
    );
  });

  it('says which file is missing, and exits 2', async () => {
    const missing = join(root, 'nowhere.yaml');
    const run = await runCli(['exports', 'check'], cliEnv({ EXPORTS_FILE: missing }));
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: `${missing}: cannot be read: there is no such file (ENOENT)\n`,
    });
  });

  it('accepts docs/examples/exports.yaml', async () => {
    const example = new URL('../../docs/examples/exports.yaml', import.meta.url).pathname;
    // EXPORT_DEST is its default, ./exports, where the example's dests lie; nothing is written.
    const run = await runCli(['exports', 'check'], cliEnv({ EXPORTS_FILE: example }));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`${example}: 3 export definitions`);
  });

  it('shows the legacy nightly definition when EXPORTS_FILE is not set', async () => {
    const run = await runCli(
      ['exports', 'check', '--at', '2026-11-27T12:00:00Z'],
      cliEnv({
        EXPORT_DEST: join(root, 'exports'),
        NIGHTLY_TZ: 'Asia/Kolkata',
        LOOKBACK_DAYS: '0',
        REPORT_LANG: 'de',
      }),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'EXPORTS_FILE is not set: 1 export definition, made of NIGHTLY_*, LOOKBACK_DAYS, EXPORT_FORMATS and EXPORT_DEST',
        '',
        'nightly',
        "  period:     yesterday (the day before the run's date)",
        '  schedule:   0 3 * * * in Asia/Kolkata',
        '  next runs:  2026-11-28 03:00 +05:30  2026-11-27',
        '              2026-11-29 03:00 +05:30  2026-11-28',
        '              2026-11-30 03:00 +05:30  2026-11-29',
        '  formats:    csv, xlsx',
        '  language:   de',
        `  dest:       ${join(root, 'exports')}`,
        '',
      ].join('\n'),
    );
  });

  it('refuses a REPORT_LANG without a catalog in one line naming it, and exits 2', async () => {
    const { run } = await check(yaml('exports:', '  - name: daily', '    period: yesterday'), [], {
      REPORT_LANG: 'fr',
    });
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'shift-export exports: CONFIG_INVALID: REPORT_LANG is invalid ("fr"): must be one of en, ru, de, pt-BR (the languages with a complete catalog)\n',
    });
  });

  it('refuses a missing or unknown subcommand and a malformed --at with one line, exit 2', async () => {
    const env = cliEnv({});
    const none = await runCli(['exports'], env);
    expect([none.code, none.stderr]).toEqual([
      2,
      'shift-export exports: USAGE: exports: give a subcommand: check (see shift-export exports --help)\n',
    ]);
    const typo = await runCli(['exports', 'chek'], env);
    expect([typo.code, typo.stderr]).toEqual([
      2,
      'shift-export exports: USAGE: exports: unknown subcommand "chek"; did you mean "check"? (see shift-export exports --help)\n',
    ]);
    const at = await runCli(['exports', 'check', '--at', 'tomorrow'], env);
    expect([at.code, at.stderr]).toEqual([
      2,
      'shift-export exports: USAGE: exports check: --at "tomorrow" is not a date-time with a zone (e.g. 2026-03-28T12:00:00Z or 2026-03-28T13:00:00+01:00)\n',
    ]);
    const help = await runCli(['exports', 'check', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: shift-export exports check [--at DATETIME]');
  });
});

describe("shift-export exports check: the managers' languages", () => {
  // Seed 2's managers read Russian, English, Portuguese, and Kazakh, Hindi and Nepali, which have no catalog.
  const SEED = 2;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    sandbox = await startTestSandbox({ seed: SEED });
  });

  afterAll(async () => {
    await sandbox.close();
  });

  const weekly = (...more: string[]) =>
    yaml(
      'exports:',
      '  - name: weekly',
      '    period: last-week',
      '    split: division',
      '    lang: de',
      ...more,
      '    deliver: { email: { to: division-managers } }',
      '  - name: daily',
      '    period: yesterday',
    );

  /** What the sandbox says its managers read, counted here with a table of its eight codes. */
  async function expectedReaders(only?: readonly number[]): Promise<string[]> {
    const response = await fetch(`${sandbox.url}/v1/orgstruct/divisions?fields=dirs`, {
      headers: { authorization: `Bearer ${SANDBOX_READER_TOKEN}` },
    });
    type Manager = { login: string; active: boolean; inviteAccepted: boolean; lang: string };
    const all = (await response.json()) as { id: number; dirs: Manager[] }[];
    const divisions = only === undefined ? all : all.filter((d) => only.includes(d.id));
    const ours: Record<string, string> = {
      ru_RU: 'ru',
      en_US: 'en',
      en_GB: 'en',
      de_DE: 'de',
      pt_BR: 'pt-BR',
    };
    const own = new Map<string, number>();
    const none = new Map<string, number>();
    const mailed = new Set<string>();
    for (const m of divisions.flatMap((d) => d.dirs)) {
      if (!m.active || !m.inviteAccepted || !m.login.includes('@') || mailed.has(m.login)) continue;
      mailed.add(m.login);
      const language = ours[m.lang];
      if (language !== undefined) own.set(language, (own.get(language) ?? 0) + 1);
      else none.set(m.lang.replace('_', '-'), (none.get(m.lang.replace('_', '-')) ?? 0) + 1);
    }
    const order = ['en', 'ru', 'de', 'pt-BR'];
    const ownText = [...own].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
    const noneText = [...none].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
    const fallbacks = [...none.values()].reduce((a, b) => a + b, 0);
    const lines = [
      `  readers:    ${mailed.size} managers of ${divisions.length} divisions get mail; in their own language: ${ownText.map(([l, n]) => `${l} ×${n}`).join(', ')}`,
    ];
    if (fallbacks > 0)
      lines.push(
        `              ${fallbacks} fall back to de: no catalog for ${noneText.map(([t, n]) => `${t} ×${n}`).join(', ')}`,
      );
    return lines;
  }

  const upstream = () => ({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN });

  it('shows, for a definition that mails division managers, who reads which language and who falls back and why', async () => {
    const { run } = await check(weekly(), [], upstream());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const readers = run.stdout
      .split('\n')
      .filter((line) => /^ {2}readers:| {14}\d+ (fall|manager)/.test(line));
    const expected = await expectedReaders();
    expect(readers.slice(0, expected.length)).toEqual(expected);
    // The languages without a catalog the sandbox gives are there, by tag; the plain definition has no readers.
    expect(run.stdout).toMatch(/no catalog for kk-KZ ×\d/);
    expect(run.stdout.match(/readers:/g)).toHaveLength(1);
    expect(run.stdout).not.toContain('not counted');
  });

  it("counts only the divisions of the definition's filter", async () => {
    const { run } = await check(weekly('    filter: { divisions: [1, 2] }'), [], upstream());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain((await expectedReaders([1, 2]))[0]);
    expect(run.stdout).toContain('of 2 divisions get mail');
  });

  it('says in one line that the upstream could not be read, and still exits 0 for a valid file', async () => {
    const { run } = await check(weekly(), [], {
      WFM_BASE_URL: UNREACHABLE_SETTINGS['WFM_BASE_URL'] ?? '',
      WFM_TOKEN: 'wfm-token-ok',
      WFM_RETRY_ATTEMPTS: '1',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const notes = run.stdout.split('\n').filter((line) => line.startsWith("managers' languages:"));
    expect(notes).toEqual([
      expect.stringMatching(
        /^managers' languages: not counted, the upstream could not be read: WFM_NETWORK: /,
      ),
    ]);
    expect(run.stdout).not.toContain('wfm-token-ok');
  });
});
