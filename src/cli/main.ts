// The `shift-export` command: dispatches to one file per command and turns every failure into one
// line on stderr with a non-zero exit code (2 for usage, configuration and a bad EXPORTS_FILE, 1 for everything else).

import { processEnv } from '../config/load-config.js';
import { loadLogLevel } from '../config/log-level.js';
import { describeError, ShiftExportError } from '../errors.js';
import { createLogger, type LogLevel } from '../logger.js';
import { logProcessWarnings } from '../process-warnings.js';
import { redactSecrets, secretValuesOf } from '../redact-secrets.js';
import { oneLine } from '../one-line.js';
import { closestName } from './closest-name.js';
import { endWithParent } from './end-with-parent.js';
import { FORMATS_PROSE, type Command, type CliIo } from './command.js';

function usage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `shift-export: turns the WFM finished-shift report into ${FORMATS_PROSE} files with location-match statistics.`,
    '',
    'Usage: shift-export <command> [flags]      shift-export <command> --help',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Examples:',
    '  npx shift-export demo                                   # sandbox upstream, files in ./exports',
    '  npx shift-export run --from 2026-11-01 --to 2026-11-07   # needs WFM_BASE_URL and WFM_TOKEN',
    '  npx shift-export worker                                  # BullMQ worker with the nightly schedule',
    '',
    'Configuration is read from environment variables: see docs/configuration.md.',
  ].join('\n');
}

/** Runs one command line over `commands` (cliCommands); resolves with the exit code. */
export async function main(
  argv: readonly string[],
  io: CliIo,
  commands: readonly Command[],
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${usage(commands)}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    const { TOOL_VERSION } = await import('../version.js');
    io.stdout.write(`${TOOL_VERSION}\n`);
    return 0;
  }
  const command: Command | undefined = commands.find((c) => c.name === name);
  if (command === undefined) {
    const meant = closestName(
      name,
      commands.map((c) => c.name),
    );
    io.stderr.write(
      `shift-export: unknown command "${oneLine(name)}"${meant === undefined ? '' : `; did you mean "${meant}"?`} (see shift-export --help)\n`,
    );
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.help.trim()}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // Configuration errors are redacted where they are made; this also covers the others (a
    // --dest or an upstream message that quotes a URL with its credentials).
    io.stderr.write(
      `shift-export ${command.name}: ${redactSecrets(describeError(error), secretValuesOf(io.env))}\n`,
    );
    if (
      error instanceof ShiftExportError &&
      [
        'USAGE',
        'CONFIG_INVALID',
        'REQUEST_INVALID',
        'DEST_INVALID',
        'DEST_NOT_ALLOWED',
        'EXPORTS_FILE_INVALID',
      ].includes(error.code)
    ) {
      return 2;
    }
    return 1;
  }
}

/** Runs the CLI in this process: what bin/shift-export.js calls with the command table. */
export function runCli(commands: readonly Command[]): void {
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: processEnv() };
  logProcessWarnings(createLogger({ level: warningLevel(io.env), destination: io.stderr }));
  const stopFollowing = endWithParent();
  main(process.argv.slice(2), io, commands)
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        process.stderr.write(`shift-export: ${describeError(error)}\n`);
        process.exitCode = 1;
      },
    )
    .finally(stopFollowing);
}

/** LOG_LEVEL for process warnings; a malformed one is reported by the command that loads it. */
function warningLevel(env: CliIo['env']): LogLevel {
  try {
    return loadLogLevel(env);
  } catch {
    return 'warn';
  }
}
