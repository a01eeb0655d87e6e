// `shift-export sandbox`: the reference WFM server (the wfm-sandbox package), for local
// development, tests in other processes, the benchmark and docker-compose. Its flags, help and
// ready line are the package's (its own bin, `wfm-sandbox`, runs the same); this file gives them
// the CLI's flag parsing, logger and errors. The server itself (fastify) is loaded only when the
// command runs.

import {
  SANDBOX_FLAGS,
  SANDBOX_HELP,
  SANDBOX_USAGE,
  sandboxOptionsFromFlags,
  sandboxReadyLine,
  SandboxUsageError,
} from 'wfm-sandbox/command-line';
import { loadLogLevel } from '../config/log-level.js';
import { ConfigError } from '../errors.js';
import { createLogger } from '../logger.js';
import { parseFlags, UsageError, type Command } from './command.js';

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'run the sandbox WFM API (generated data, fault injection) until stopped',
  help: `
Usage: shift-export sandbox ${SANDBOX_USAGE}

${SANDBOX_HELP}

Examples:
  npx shift-export sandbox --port 8080 --rows 1000000 --seed 7
  npx shift-export sandbox --faults '{"wfm_timers":{"failNext":3,"errorStatus":503}}'
`,
  async run(argv, io) {
    const { values } = parseFlags('sandbox', argv, SANDBOX_FLAGS);
    const options = asOurError(() => sandboxOptionsFromFlags(values));
    const logger = createLogger({ level: loadLogLevel(io.env), destination: io.stderr, name: 'sandbox' });
    const { startSandbox, SandboxConfigError } = await import('wfm-sandbox');
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    let sandbox;
    try {
      sandbox = await startSandbox({ ...options, logger });
    } catch (error) {
      if (error instanceof SandboxConfigError) throw new ConfigError(error.message);
      throw error;
    }
    io.stdout.write(`${sandboxReadyLine(sandbox)}\n`);
    await stopped;
    await sandbox.close();
    return 0;
  },
};

/** The package's usage errors as the CLI's (exit 2, `sandbox: ` before the flag). */
function asOurError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SandboxUsageError) throw new UsageError(`sandbox: ${error.message}`);
    throw error;
  }
}
