// What every CLI command is: a name, a one-line summary, a --help text with examples, and a run
// function over its own arguments. Flags are parsed strictly by node:util parseArgs, so an unknown
// or malformed flag stops the program with one line that names it.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ENV_DOCS } from '../config/config-groups.js';
import { EXPORT_FORMATS, type ExportFormat } from '../domain/export-format.js';
import { ShiftExportError } from '../errors.js';
import { closestName } from './closest-name.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  /** Resolves with the process exit code. */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

/** A wrong flag, a missing value: the user typed something we cannot run. Exit code 2. */
export class UsageError extends ShiftExportError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * parseArgs in strict mode, with errors rewritten as one-line UsageErrors naming the command (and
 * the flag it probably meant, for an unknown one).
 */
export function parseFlags<O extends Options>(
  command: string,
  argv: readonly string[],
  options: O,
  allowPositionals = false,
) {
  const all = { ...options, help: { type: 'boolean' as const, short: 'h' } };
  try {
    return parseArgs({
      args: joinNegativeNumbers(argv, options),
      options: all,
      strict: true,
      allowPositionals,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message ?? '')?.[1];
    const meant =
      unknown === undefined
        ? undefined
        : closestName(
            unknown,
            Object.keys(all).map((name) => `--${name}`),
          );
    throw new UsageError(
      `${command}: ${message?.replace(/\. To specify.*$/, '')}${meant === undefined ? '' : `; did you mean ${meant}?`} (see shift-export ${command} --help)`,
    );
  }
}

/**
 * `--rows -5` as `--rows=-5`: parseArgs takes a value starting with "-" for a flag and calls it
 * ambiguous; a negative number is a value, and the command then says why it is not a valid one.
 */
function joinNegativeNumbers(argv: readonly string[], options: Options): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      options[name]?.type === 'string' &&
      next !== undefined &&
      /^-[\d.]/.test(next)
    ) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}

/** How the prose names each format; a new format in EXPORT_FORMATS must be given a name here. */
const FORMAT_NAMES: Readonly<Record<ExportFormat, string>> = { csv: 'CSV', xlsx: 'XLSX', parquet: 'Parquet' };

/** "CSV, XLSX and Parquet": every format, for a sentence. */
export const FORMATS_PROSE = EXPORT_FORMATS.map((f) => FORMAT_NAMES[f])
  .join(', ')
  .replace(/, ([^,]+)$/, ' and $1');

/** The usage lines' --format, naming every format (EXPORT_FORMATS), so none goes missing. */
export const FORMAT_USAGE = `[--format ${EXPORT_FORMATS.join(',')}]`;

/** The help texts' --format line: every format and the default (EXPORT_FORMATS' own). */
export const FORMAT_FLAG_HELP = `  --format LIST   ${EXPORT_FORMATS.join(', ')}, comma-separated (default: EXPORT_FORMATS, else ${ENV_DOCS.EXPORT_FORMATS.default})`;

/** The help texts' one line on where the queue's Redis is (docs/operations.md, "Scale out", has the rest). */
export const REDIS_SETTINGS_HELP =
  'Redis: REDIS_URL, or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_NAME\n' +
  '(docs/operations.md: "Scale out").';
