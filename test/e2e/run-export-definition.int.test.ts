// `shift-export run --export NAME` as a child process against the sandbox over HTTP: the run a
// definition's schedule would make on a local date, each period's files published under the
// definition's dest, a look-back day as a period of its own, a split mailed to the division managers
// in the definition's language and theirs; an unknown name or a mixed form is refused with one line
// and exit 2.

import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { parseManifest } from '../../src/render/manifest.js';
import { cliEnv, runCli } from '../support/cli.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { startSmtpReceiver } from '../support/smtp-receiver.js';

let sandbox: RunningSandbox;
let root: string;
let env: NodeJS.ProcessEnv;

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 600 });
  root = mkdtempSync(join(tmpdir(), 'run-export-'));
  const file = join(root, 'exports.yaml');
  writeFileSync(
    file,
    yaml(
      'exports:',
      '  - name: weekly',
      '    schedule: { cron: "0 6 * * 1", tz: Europe/Berlin }',
      '    period: last-week',
      '    formats: [csv]',
      '  - name: daily',
      '    period: yesterday',
      '    lookback_days: 1',
      '    formats: [csv]',
      '  - name: managers',
      '    period: last-week',
      '    formats: [xlsx]',
      '    lang: de',
      '    split: division',
      '    deliver:',
      '      email: { to: division-managers }',
    ),
  );
  env = cliEnv({
    EXPORTS_FILE: file,
    EXPORT_DEST: join(root, 'exports'),
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: SANDBOX_ADMIN_TOKEN,
    WFM_RETRY_BASE_DELAY_MS: '10',
  });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(root, { recursive: true, force: true });
});

function manifestOf(folder: string) {
  return parseManifest(readFileSync(join(realpathSync(folder), 'manifest.json'), 'utf8'));
}

describe('shift-export run --export', () => {
  it('exports last week as the Monday run would, into EXPORT_DEST/<name>/<from>_<to>/', async () => {
    const run = await runCli(['run', '--export', 'weekly', '--date', '2024-04-01'], env);
    expect(run.stderr).toContain('export weekly (run of 2024-04-01): 2024-03-25..2024-03-31, 1 of 1');
    expect(run.code).toBe(0);
    const manifest = manifestOf(join(root, 'exports', 'weekly', '2024-03-25_2024-03-31'));
    expect(manifest.period).toEqual({ from: '2024-03-25', to: '2024-03-31' });
    expect(manifest.files.map((f) => f.name)).toContain('shifts.csv');
    expect(manifest.counts.exported).toBeGreaterThan(0);
  });

  it('exports yesterday and each look-back day as a period of its own', async () => {
    const run = await runCli(['run', '--export', 'daily', '--date', '2024-03-30'], env);
    expect(run.code).toBe(0);
    for (const day of ['2024-03-29', '2024-03-28']) {
      expect(manifestOf(join(root, 'exports', 'daily', `${day}_${day}`)).period).toEqual({
        from: day,
        to: day,
      });
    }
  });

  it("writes the definition's language, and each division's workbook in every language its managers read", async () => {
    const smtp = await startSmtpReceiver();
    try {
      const run = await runCli(['run', '--export', 'managers', '--date', '2024-04-01'], {
        ...env,
        SMTP_URL: smtp.url,
        SMTP_FROM: 'reports@example.com',
      });
      expect(run.code, run.stderr).toBe(0);
      const manifest = manifestOf(join(root, 'exports', 'managers', '2024-03-25_2024-03-31'));
      const workbooks = manifest.files.filter((f) => f.name.endsWith('.xlsx'));
      // shifts.xlsx in the definition's German, beside it the languages the sandbox's managers read.
      for (const f of workbooks)
        expect(f.name).toBe(f.lang === 'de' ? 'shifts.xlsx' : `shifts.${f.lang}.xlsx`);
      expect(new Set(workbooks.map((f) => f.lang))).toEqual(new Set(['de', 'en', 'ru', 'pt-BR']));
      // Each mail carries the workbook in the language it is written in.
      expect(smtp.messages.length).toBeGreaterThan(1);
      for (const mail of smtp.messages) {
        const lang = mail.parsed.headers.get('content-language') as string;
        expect(mail.parsed.attachments.map((a) => a.filename)).toEqual([
          `managers_2024-03-25_2024-03-31_${lang === 'de' ? 'shifts.xlsx' : `shifts.${lang}.xlsx`}`,
        ]);
      }
    } finally {
      await smtp.close();
    }
  });

  it('refuses an unknown name with one line naming the closest, exit 2', async () => {
    const run = await runCli(['run', '--export', 'weekyl'], env);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `shift-export run: REQUEST_INVALID: no export definition "weekyl" in ${env['EXPORTS_FILE']}; did you mean "weekly"? (known: weekly, daily, managers)`,
    ]);
  });

  it('refuses --export beside the flags of a period, and --date without --export', async () => {
    const mixed = await runCli(['run', '--export', 'weekly', '--from', '2024-03-01'], env);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('drop --from');
    const date = await runCli(
      ['run', '--from', '2024-03-01', '--to', '2024-03-01', '--date', '2024-03-02'],
      env,
    );
    expect(date.code).toBe(2);
    expect(date.stderr).toContain('--date goes with --export NAME');
  });

  it('refuses a date that is not one', async () => {
    const run = await runCli(['run', '--export', 'weekly', '--date', '2024-02-30'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--date "2024-02-30" is not a real date as YYYY-MM-DD');
  });
});
