// `shift-export sandbox`: the reference WFM server, for local development, tests in other
// processes, the benchmark and docker-compose.

import { readFileSync } from 'node:fs';
import { createLogger } from '../logger.js';
import { loadLogLevel } from '../config/log-level.js';
import { parseDay } from '../domain/civil-time.js';
import type { FaultPlan } from '../sandbox/faults.js';
import { parseFaultPlan } from '../sandbox/fault-controller.js';
import { countText } from './count-text.js';
import { parseFlags, UsageError, type Command } from './command.js';

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'run the sandbox WFM API (generated data, fault injection) until stopped',
  help: `
Usage: shift-export sandbox [--host H] [--port P] [--rows N] [--seed S] [--end-date YYYY-MM-DD] [--days D] [--user-per-row] [--divisions N] [--faults JSON|@file]

Serves the whole WFM API of the spec (categories, divisions, the wfm_timers report with
PostgREST-style filters and paging) from deterministic generated data.

Flags:
  --host H        address to listen on (default 127.0.0.1)
  --port P        port (default 8080; 0 picks a free one)
  --rows N        shifts in the report (default 10000)
  --seed S        seed of the generated data (default 1)
  --end-date D    last business date with shifts (default yesterday, UTC)
  --days D        days of data ending at --end-date (default 28)
  --user-per-row  every row its own user_id (the report with the most groups; the bench's
                  --cardinality line)
  --divisions N   N plain divisions, the shops dealt round-robin among them (the bench's
                  --split line)
  --faults F      fault plan as JSON, or @path to a JSON file (see src/sandbox/faults.ts);
                  also settable at run time: PUT /_sandbox/faults

Tokens: sandbox-admin (every role), sandbox-reader (the report only), sandbox-norole (no role):
send them as Authorization: Bearer <token>. Errors are JSON {error, message}: 401 without a valid
token, 403 without the role, 400 for invalid input, 404 for unknown ids.

Examples:
  npx shift-export sandbox --port 8080 --rows 1000000 --seed 7
  npx shift-export sandbox --faults '{"wfm_timers":{"failNext":3,"errorStatus":503}}'
`,
  async run(argv, io) {
    const { values } = parseFlags('sandbox', argv, {
      host: { type: 'string' },
      port: { type: 'string' },
      rows: { type: 'string' },
      seed: { type: 'string' },
      'end-date': { type: 'string' },
      days: { type: 'string' },
      'user-per-row': { type: 'boolean' },
      divisions: { type: 'string' },
      faults: { type: 'string' },
    });
    const endDate = values['end-date'];
    if (endDate !== undefined && parseDay(endDate) === undefined)
      throw new UsageError(`sandbox: --end-date "${endDate}" is not a date (YYYY-MM-DD)`);
    const { startSandbox } = await import('../sandbox/start-sandbox.js');
    const logger = createLogger({ level: loadLogLevel(io.env), destination: io.stderr, name: 'sandbox' });
    const sandbox = await startSandbox({
      host: values.host ?? '127.0.0.1',
      port: wholeNumber(values.port ?? '8080', '--port'),
      rows: wholeNumber(values.rows ?? '10000', '--rows'),
      seed: wholeNumber(values.seed ?? '1', '--seed'),
      ...(endDate === undefined ? {} : { endDate }),
      ...(values.days === undefined ? {} : { days: wholeNumber(values.days, '--days') }),
      ...(values.faults === undefined ? {} : { faults: readFaults(values.faults) }),
      ...(values['user-per-row'] === true ? { userPerRow: true } : {}),
      ...(values.divisions === undefined ? {} : { divisions: wholeNumber(values.divisions, '--divisions') }),
      logger,
    });
    io.stdout.write(`${sandboxReadyLine(sandbox.url, sandbox.dataset)}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await sandbox.close();
    return 0;
  },
};

/** The line `sandbox` prints once it listens (scripts wait for it). */
export function sandboxReadyLine(
  url: string,
  dataset: { readonly rows: number; readonly firstDate: string; readonly lastDate: string },
): string {
  return `sandbox listening on ${url} (${countText(dataset.rows)} shifts, ${dataset.firstDate}..${dataset.lastDate})`;
}

function wholeNumber(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`sandbox: ${flag} must be a whole number (got "${text}")`);
  return Number(text);
}

function readFaults(text: string): FaultPlan {
  const json = text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`sandbox: --faults is not valid JSON (${(error as Error).message})`);
  }
  try {
    return parseFaultPlan(value);
  } catch (error) {
    throw new UsageError(
      `sandbox: --faults is not a fault plan (${(error as Error).message.split('\n')[0]})`,
    );
  }
}
