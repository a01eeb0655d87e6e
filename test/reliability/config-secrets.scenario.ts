// Secrets in configuration errors: every environment variable, given a malformed value
// that carries a password (in URL userinfo and a password= parameter; the whole value for a
// secret-named variable), stops the command that reads it with exit 2 and one line naming the
// variable, and the password appears nowhere in its output. The password is declared to the
// suite's secret sweep too, which greps every kept output.

import { readdirSync } from 'node:fs';
import { describe, it } from 'vitest';
import { ENV_DOCS, type EnvName } from '../../src/config/config-groups.js';
import { isSecretName } from '../../src/redact-secrets.js';
import { cliEnv, runCli, UNREACHABLE_SETTINGS } from '../support/cli.js';
import { declareSecret, evidenceFolder, keepText } from './support/evidence.js';
import { scenario } from './support/scenario.js';

const GROUP = 'bad input';
const PASSWORD = 'cfg-pw-5d1e7a-do-not-leak';
const DAY = ['--from', '2024-03-30', '--to', '2024-03-30'];

const closedPorts = UNREACHABLE_SETTINGS;

/** The command that reads `name` at start, with its arguments. */
function commandFor(name: EnvName, dest: string): string[] {
  if (name === 'EXPORTS_FILE') return ['exports', 'check'];
  if (name.startsWith('S3_')) return ['run', ...DAY, '--dest', 's3://bucket-x/prefix', '--format', 'csv'];
  if (/^(WFM|EXPORT|CSV|XLSX|LOG|NOTIFY)_/.test(name) || name === 'REPORT_LANG')
    return ['run', ...DAY, '--dest', dest, '--format', 'csv'];
  if (/^(REDIS|QUEUE|WORKER|JOB|SHUTDOWN|NIGHTLY|LOOKBACK)_/.test(name)) return ['worker'];
  if (/^(API|DASHBOARD)_/.test(name)) return ['api'];
  if (name.startsWith('SMTP_')) return ['worker'];
  throw new Error(`${name}: no command is known to read it; add it here`);
}

/** A value every validator refuses, with PASSWORD where secrets hide. */
function malformed(name: EnvName): string {
  return isSecretName(name)
    ? `${PASSWORD}\r\nX-Injected: 1`
    : `https://admin:${PASSWORD}@wfm example.com/?password=${PASSWORD}\u0007`;
}

describe('secrets in configuration errors', () => {
  it('refuses every variable with one line naming it, the password nowhere', () =>
    scenario(GROUP, 'secrets in configuration errors (every variable)', async () => {
      declareSecret(PASSWORD);
      const names = Object.keys(ENV_DOCS) as EnvName[];
      const wrong: string[] = [];
      for (const name of names) {
        const dest = evidenceFolder('config-secrets');
        const env: Record<string, string> = { ...closedPorts, [name]: malformed(name) };
        // A token file is read only when its variable is unset.
        if (name === 'WFM_TOKEN_FILE') env['WFM_TOKEN'] = '';
        if (name === 'API_TOKENS_FILE') env['API_TOKENS'] = '';
        const r = await runCli(commandFor(name, dest), cliEnv(env), 30_000);
        keepText('config-secrets', `${name}: exit ${r.code}\n${r.stdout}${r.stderr}`);
        const lines = r.stderr.split('\n').filter((l) => l !== '');
        const ok =
          r.code === 2 &&
          lines.length === 1 &&
          (lines[0] ?? '').includes(`CONFIG_INVALID: ${name} `) &&
          !`${r.stdout}${r.stderr}`.includes(PASSWORD) &&
          readdirSync(dest).length === 0;
        if (!ok) wrong.push(`${name} (exit ${r.code}: ${r.stderr.trim().slice(0, 160)})`);
      }
      if (wrong.length > 0)
        throw new Error(`${wrong.length}/${names.length} not refused cleanly: ${wrong.join('; ')}`);
      return {
        outcome: `${names.length}/${names.length} variables refused with exit 2 and one line naming them; the password nowhere`,
      };
    }));
});
