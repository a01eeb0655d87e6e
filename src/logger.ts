// pino for every log line: JSON on stdout (stderr for the CLI, so stdout stays for results),
// level from LOG_LEVEL, and redaction of anything that could carry a secret. Redaction paths are
// case-sensitive: callers log header names in lower case.

import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** pino's levels, as LOG_LEVEL names them (config/log-level.ts). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'secretAccessKey',
  '*.secretAccessKey',
  'password',
  '*.password',
];

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly destination?: DestinationStream | NodeJS.WritableStream;
  readonly name?: string;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { name: options.name ?? 'shift-export', pid: process.pid },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    (options.destination ?? pino.destination({ fd: 2, sync: false })) as DestinationStream,
  );
}

/** A logger that writes nothing: for library code called without one, and for quiet tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
