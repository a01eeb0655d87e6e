// What every CLI command is: a name, a one-line summary, a --help text with examples, and a run
// function over its own arguments. Flags are parsed strictly by node:util parseArgs, so an unknown
// or malformed flag stops the program with one line that names it.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ShiftExportError } from '../errors.js';

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

/** parseArgs in strict mode, with errors rewritten as one-line UsageErrors naming the command. */
export function parseFlags<O extends Options>(
  command: string,
  argv: readonly string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(
      `${command}: ${message?.replace(/\. To specify.*$/, '')} (see shift-export ${command} --help)`,
    );
  }
}

export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}
