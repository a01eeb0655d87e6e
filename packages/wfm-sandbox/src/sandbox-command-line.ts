// The sandbox's command line, one declaration for both programs that run it: its own bin
// (`wfm-sandbox`, sandbox-cli.ts) and the exporter's `shift-export sandbox`. The flags, their help,
// their reading into SandboxOptions, and the one line printed once the sandbox listens.

import { readFileSync } from 'node:fs';
import { parseDay } from 'wfm-contract/civil-time';
import { parseFaultPlan } from './fault-controller.js';
import type { FaultPlan } from './faults.js';
import { SandboxUsageError } from './sandbox-error.js';
import type { SandboxDataset } from './sandbox-context.js';
import type { SandboxOptions } from './start-sandbox.js';

export { SandboxUsageError };

/** The flags, in node:util parseArgs form (strings are checked by sandboxOptionsFromFlags). */
export const SANDBOX_FLAGS = {
  host: { type: 'string' },
  port: { type: 'string' },
  rows: { type: 'string' },
  seed: { type: 'string' },
  'end-date': { type: 'string' },
  days: { type: 'string' },
  'user-per-row': { type: 'boolean' },
  divisions: { type: 'string' },
  faults: { type: 'string' },
} as const;

export interface SandboxFlagValues {
  readonly host?: string | undefined;
  readonly port?: string | undefined;
  readonly rows?: string | undefined;
  readonly seed?: string | undefined;
  readonly 'end-date'?: string | undefined;
  readonly days?: string | undefined;
  readonly 'user-per-row'?: boolean | undefined;
  readonly divisions?: string | undefined;
  readonly faults?: string | undefined;
}

/** The defaults of the command line (the programmatic API's port is 0: a free one). */
export const SANDBOX_COMMAND_DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  rows: 10_000,
  seed: 1,
});

/** What follows a program's `Usage: <program>` line. */
export const SANDBOX_USAGE =
  '[--host H] [--port P] [--rows N] [--seed S] [--end-date YYYY-MM-DD] [--days D] [--user-per-row] [--divisions N] [--faults JSON|@file]';

/** The help text between the usage line and the examples. */
export const SANDBOX_HELP = `
Serves the whole WFM API (categories, divisions, the wfm_timers report with PostgREST-style
filters and paging) from deterministic generated data, until SIGINT or SIGTERM, or until the
process that started it goes away.

Flags:
  --host H        address to listen on (default 127.0.0.1)
  --port P        port (default 8080; 0 picks a free one)
  --rows N        shifts in the report (default 10000)
  --seed S        seed of the generated data (default 1)
  --end-date D    last business date with shifts (default yesterday, UTC)
  --days D        days of data ending at --end-date (default 28)
  --user-per-row  every row its own user_id (the report with the most groups; the bench's
                  --cardinality line)
  --divisions N   N plain divisions ("Division N", no managers), the shops dealt round-robin
                  among them (the bench's --split line)
  --faults F      fault plan as JSON, or @path to a JSON file (the wfm-sandbox package's README,
                  "Fault injection"); also settable at run time: PUT /_sandbox/faults

Tokens: sandbox-admin (every role), sandbox-reader (the report only), sandbox-norole (no role):
send them as Authorization: Bearer <token>. Errors are JSON {error, message}: 401 without a valid
token, 403 without the role, 400 for invalid input, 404 for unknown ids.

Exit code 0 once stopped by SIGTERM or SIGINT (or once the process that started it has gone); 1
when it cannot listen on --host:--port; 2 for bad flags or configuration.`.trim();

/** The flags as startSandbox's options; a malformed value is a SandboxUsageError naming its flag. */
export function sandboxOptionsFromFlags(values: SandboxFlagValues): SandboxOptions {
  const endDate = values['end-date'];
  if (endDate !== undefined && parseDay(endDate) === undefined)
    throw new SandboxUsageError(`--end-date "${endDate}" is not a date (YYYY-MM-DD)`);
  return {
    host: values.host ?? SANDBOX_COMMAND_DEFAULTS.host,
    port: wholeNumber(values.port ?? String(SANDBOX_COMMAND_DEFAULTS.port), '--port'),
    rows: wholeNumber(values.rows ?? String(SANDBOX_COMMAND_DEFAULTS.rows), '--rows'),
    seed: wholeNumber(values.seed ?? String(SANDBOX_COMMAND_DEFAULTS.seed), '--seed'),
    ...(endDate === undefined ? {} : { endDate }),
    ...(values.days === undefined ? {} : { days: wholeNumber(values.days, '--days') }),
    ...(values.faults === undefined ? {} : { faults: readFaults(values.faults) }),
    ...(values['user-per-row'] === true ? { userPerRow: true } : {}),
    ...(values.divisions === undefined ? {} : { divisions: wholeNumber(values.divisions, '--divisions') }),
  };
}

/**
 * The line printed once the sandbox listens: scripts wait for "listening on <url>", and a person
 * reads which token to send.
 */
export function sandboxReadyLine(sandbox: {
  readonly url: string;
  readonly dataset: Pick<SandboxDataset, 'rows' | 'firstDate' | 'lastDate'>;
  readonly adminToken: string | undefined;
}): string {
  const { rows, firstDate, lastDate } = sandbox.dataset;
  const token =
    sandbox.adminToken === undefined ? '' : `; accepts Authorization: Bearer ${sandbox.adminToken}`;
  return `sandbox listening on ${sandbox.url} (${countText(rows)} shifts, ${firstDate}..${lastDate})${token}`;
}

/** A count as every shift-export command prints one: with thousands separators. */
function countText(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
}

function wholeNumber(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new SandboxUsageError(`${flag} must be a whole number (got "${text}")`);
  return Number(text);
}

function readFaults(text: string): FaultPlan {
  let json: string;
  try {
    json = text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
  } catch (error) {
    throw new SandboxUsageError(`--faults cannot read ${text.slice(1)} (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new SandboxUsageError(`--faults is not valid JSON (${(error as Error).message})`);
  }
  try {
    return parseFaultPlan(value);
  } catch (error) {
    throw new SandboxUsageError(`--faults is not a fault plan (${(error as Error).message.split('\n')[0]})`);
  }
}
