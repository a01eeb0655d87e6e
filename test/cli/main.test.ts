import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { workerCommand } from '../../jobs/worker-command.js';
import { closestName } from '../../src/cli/closest-name.js';
import type { CliIo } from '../../src/cli/command.js';
import { cliCommands } from '../../src/cli/commands.js';
import { main } from '../../src/cli/main.js';
import { EXPORT_FORMATS } from '../../src/domain/export-format.js';

function sink(): Writable & { text: () => string } {
  let text = '';
  return Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString('utf8');
        callback();
      },
    }),
    { text: () => text },
  );
}

async function cli(...argv: string[]): Promise<{ code: number; stderr: string }> {
  const stderr = sink();
  const io: CliIo = { stdout: sink(), stderr, env: { LOG_LEVEL: 'silent' } };
  const code = await main(argv, io, cliCommands(workerCommand));
  return { code, stderr: stderr.text() };
}

describe('closestName', () => {
  it('finds the name a typo was meant to be, and nothing for a word that is no typo', () => {
    const names = ['run', 'demo', 'status', 'sandbox', 'enqueue'];
    expect(closestName('sandbx', names)).toBe('sandbox');
    expect(closestName('stauts', names)).toBe('status');
    expect(closestName('Enqeue', names)).toBe('enqueue');
    expect(closestName('rnu', names)).toBe('run');
    expect(closestName('deploy', names)).toBeUndefined();
  });
});

describe('the shift-export command line', () => {
  it('suggests the command a misspelt one was meant to be', async () => {
    const typo = await cli('stauts');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'shift-export: unknown command "stauts"; did you mean "status"? (see shift-export --help)\n',
    );
    const unknown = await cli('deploy');
    expect(unknown.stderr).toBe('shift-export: unknown command "deploy" (see shift-export --help)\n');
  });

  it('suggests the flag a misspelt one was meant to be', async () => {
    const typo = await cli('status', '--limt', '5');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown option '--limt'; did you mean --limit?");
  });

  it('says a negative number is an invalid value, not an ambiguous argument', async () => {
    for (const [argv, expected] of [
      [['sandbox', '--rows', '-5'], 'sandbox: --rows must be a whole number (got "-5")'],
      [['demo', '--rows', '-5'], 'demo: --rows must be a positive whole number (got "-5")'],
      [['status', '--limit', '-5'], 'status: --limit "-5" is not a number from 1 to 1000'],
    ] as const) {
      const result = await cli(...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(expected);
      expect(result.stderr).not.toContain('ambiguous');
    }
  });
});

describe('the help texts', () => {
  it('list every format on the usage line and the --format line of each command that takes one', () => {
    const withFormat = cliCommands(workerCommand).filter((c) => c.help.includes('--format'));
    expect(withFormat.map((c) => c.name).sort()).toEqual(['backfill', 'demo', 'enqueue', 'run']);
    for (const command of withFormat) {
      const lines = command.help.trim().split('\n');
      const usage = lines.find((l) => l.startsWith('Usage:')) ?? '';
      const flag = lines.find((l) => l.trimStart().startsWith('--format')) ?? '';
      for (const format of EXPORT_FORMATS) {
        expect(usage, `${command.name} usage`).toMatch(new RegExp(`--format [a-z,]*\\b${format}\\b`));
        expect(flag, `${command.name} --format`).toContain(format);
      }
    }
  });

  it('name every format in the overview of shift-export --help', async () => {
    const stdout = sink();
    await main(['--help'], { stdout, stderr: sink(), env: {} }, cliCommands(workerCommand));
    const overview = stdout.text().split('\n')[0] ?? '';
    for (const format of EXPORT_FORMATS) expect(overview.toLowerCase()).toContain(format);
  });

  it('say what each exit code of each command means, 2 being bad flags or configuration', () => {
    for (const command of cliCommands(workerCommand)) {
      const text = command.help.replace(/\s+/g, ' ');
      expect(text, command.name).toMatch(/Exit code 0\b/);
      expect(text, command.name).toMatch(/\b1 when /);
      expect(text, command.name).toMatch(/\b2 for bad flags or configuration\b/);
    }
  });
});
