// `wfm-sandbox`, the package's own program (bin/wfm-sandbox.js): the flags of
// sandbox-command-line.ts, LOG_LEVEL from the environment, the ready line on stdout and JSON log
// lines (errors; a line per request at debug) on stderr; it runs until SIGINT or SIGTERM, or until
// the process that started it goes away. A wrong flag or option stops it with one line and exit 2.

import { parseArgs } from 'node:util';
import { endWithParent } from './end-with-parent.js';
import {
  SANDBOX_FLAGS,
  SANDBOX_HELP,
  SANDBOX_USAGE,
  sandboxOptionsFromFlags,
  sandboxReadyLine,
} from './sandbox-command-line.js';
import { SandboxError } from './sandbox-error.js';
import { createSandboxLogger, SANDBOX_LOG_LEVELS } from './sandbox-logger.js';
import { startSandbox } from './start-sandbox.js';

export interface SandboxCliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const PROGRAM = 'wfm-sandbox';

const HELP = `Usage: ${PROGRAM} ${SANDBOX_USAGE}

${SANDBOX_HELP}

Environment:
  LOG_LEVEL       ${SANDBOX_LOG_LEVELS.join(', ')} (default info: errors only; debug adds a line per
                  request)

Examples:
  npx ${PROGRAM} --port 8080 --rows 1000000 --seed 7
  npx ${PROGRAM} --faults '{"wfm_timers":{"failNext":3,"errorStatus":503}}'`;

/** Runs the program over `argv` (without node and the script); resolves with its exit code. */
export async function runSandboxCli(argv: readonly string[], io: SandboxCliIo): Promise<number> {
  const fail = (message: string, code: number): number => {
    io.stderr.write(`${PROGRAM}: ${message}\n`);
    return code;
  };
  let values: ReturnType<typeof parseFlags>['values'];
  try {
    values = parseFlags(argv).values;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]?.replace(/\. To specify.*$/, '');
    return fail(`${message} (see ${PROGRAM} --help)`, 2);
  }
  if (values.help === true) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  const level = io.env['LOG_LEVEL'] ?? 'info';
  if (!(SANDBOX_LOG_LEVELS as readonly string[]).includes(level))
    return fail(`LOG_LEVEL must be one of ${SANDBOX_LOG_LEVELS.join(', ')} (got "${level}")`, 2);

  const stopFollowing = endWithParent();
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  try {
    const sandbox = await startSandbox({
      ...sandboxOptionsFromFlags(values),
      logger: createSandboxLogger({
        level: level as (typeof SANDBOX_LOG_LEVELS)[number],
        destination: io.stderr,
      }),
    });
    io.stdout.write(`${sandboxReadyLine(sandbox)}\n`);
    await stopped;
    await sandbox.close();
    return 0;
  } catch (error) {
    if (error instanceof SandboxError) return fail(`${error.code}: ${error.message}`, 2);
    return fail(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 1);
  } finally {
    stopFollowing();
  }
}

function parseFlags(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: { ...SANDBOX_FLAGS, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
}
