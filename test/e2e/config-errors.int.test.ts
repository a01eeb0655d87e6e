// Every command that parses configuration, as a child process: a variable holding a secret in a
// bad shape stops it at start with exit 2 and one line on stderr that names the variable and shows
// the secret nowhere. Nothing else is reached: Redis and the WFM API point at closed ports, so a
// check that let the value through would show as another exit code.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, UNREACHABLE_SETTINGS } from '../support/cli.js';

const SECRET = 'Sup3rSecret-9f2c';
const DAY = ['--from', '2024-03-30', '--to', '2024-03-30'];
const dest = mkdtempSync(join(tmpdir(), 'config-errors-'));
const tokenFile = join(dest, 'token');
writeFileSync(tokenFile, `${SECRET}\r\nX-Injected: 1\n`);
afterAll(() => rmSync(dest, { recursive: true, force: true }));

const commands = {
  run: ['run', ...DAY, '--dest', dest, '--format', 'csv'],
  worker: ['worker'],
  enqueue: ['enqueue', ...DAY],
  status: ['status'],
  backfill: ['backfill', ...DAY],
  api: ['api'],
} as const;
type CommandName = keyof typeof commands;

const closedPorts = { ...UNREACHABLE_SETTINGS, EXPORT_DEST: dest };

interface Case {
  readonly variable: string;
  readonly env: Record<string, string>;
  readonly commands: readonly CommandName[];
}

const queueCommands: CommandName[] = ['worker', 'enqueue', 'status', 'backfill', 'api'];
const cases: Case[] = [
  {
    variable: 'REDIS_URL',
    env: { REDIS_URL: `redis://default:${SECRET}@redis internal:6379` },
    commands: queueCommands,
  },
  {
    variable: 'REDIS_CLUSTER_NODES',
    env: { REDIS_CLUSTER_NODES: `127.0.0.1:1,redis://default:${SECRET}@127.0.0.1:2` },
    commands: queueCommands,
  },
  {
    variable: 'REDIS_PASSWORD_FILE',
    env: { REDIS_PASSWORD_FILE: tokenFile },
    commands: queueCommands,
  },
  {
    variable: 'WFM_BASE_URL',
    env: { WFM_BASE_URL: `https://svc:${SECRET}@wfm.example.com` },
    commands: ['run', 'worker'],
  },
  {
    variable: 'WFM_BASE_URL',
    env: { WFM_BASE_URL: `https://wfm.example.com/?access_token=${SECRET}` },
    commands: ['run', 'worker'],
  },
  { variable: 'WFM_TOKEN', env: { WFM_TOKEN: `${SECRET}\r\nX-Injected: 1` }, commands: ['run', 'worker'] },
  {
    variable: 'WFM_TOKEN_FILE',
    env: { WFM_TOKEN: '', WFM_TOKEN_FILE: tokenFile },
    commands: ['run', 'worker'],
  },
  { variable: 'API_TOKENS', env: { API_TOKENS: `ok-token,${SECRET}\nX-Injected: 1` }, commands: ['api'] },
  {
    variable: 'EXPORT_DEST',
    env: { EXPORT_DEST: `s3://AKIAEXAMPLE:${SECRET}@bucket-x/prefix` },
    commands: ['run', 'worker', 'enqueue', 'backfill', 'api'],
  },
];

describe('configuration errors on the command line', () => {
  it.each(cases.flatMap((c) => c.commands.map((command) => [command, c.variable, c] as const)))(
    '%s stops at a bad %s: exit 2, one line naming it, no secret',
    async (command, variable, c) => {
      const r = await runCli(commands[command], cliEnv({ ...closedPorts, ...c.env }), 30_000);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`^shift-export ${command}: CONFIG_INVALID: ${variable} [^\\n]+\\n$`),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain(SECRET);
    },
  );
});
