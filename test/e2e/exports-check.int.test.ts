// `shift-export exports check` as an operator (or CI) runs it: the built CLI as a child process,
// EXPORTS_FILE in its environment, stdout and stderr and the exit code as they come.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'exports-check-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

async function check(text: string, extraArgs: readonly string[] = []) {
  const file = join(root, 'exports.yaml');
  await writeFile(file, text);
  const env = cliEnv({ EXPORTS_FILE: file, EXPORT_DEST: join(root, 'exports') });
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
        `  dest:       ${join(root, 'exports', 'nightly')}`,
        '',
        'weekly-by-division',
        "  period:     last-week (Monday to Sunday of the week before the run's)",
        '  schedule:   0 6 * * 1 in Europe/Berlin',
        '  next runs:  2026-03-30 06:00 +02:00  2026-03-23..2026-03-29',
        '              2026-04-06 06:00 +02:00  2026-03-30..2026-04-05',
        '              2026-04-13 06:00 +02:00  2026-04-06..2026-04-12',
        '  formats:    xlsx',
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
        `  dest:       ${join(root, 'exports', 'monthly')}`,
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
        `${file}:7:20: exports[1].lookback_days: only a period of yesterday looks back (this one is last-week)`,
        `${file}:8:29: exports[1].deliver.email.to: division-managers needs split: division (each division's files go to its own managers)`,
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
      cliEnv({ EXPORT_DEST: join(root, 'exports'), NIGHTLY_TZ: 'Asia/Kolkata', LOOKBACK_DAYS: '0' }),
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
        `  dest:       ${join(root, 'exports')}`,
        '',
      ].join('\n'),
    );
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
