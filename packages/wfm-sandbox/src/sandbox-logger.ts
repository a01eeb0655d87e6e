// The sandbox's logger: pino (what fastify speaks), JSON lines on stderr by default. A caller with
// a pino logger of its own (the exporter's) passes that instead. Request headers are never logged
// (fastify's request serializer leaves them out); an authorization value a handler logs is
// redacted all the same.

import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger as SandboxLogger } from 'pino';

export const SANDBOX_LOG_LEVELS: readonly LevelWithSilent[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export interface SandboxLoggerOptions {
  readonly level?: LevelWithSilent;
  readonly destination?: DestinationStream | NodeJS.WritableStream;
}

export function createSandboxLogger(options: SandboxLoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { name: 'sandbox', pid: process.pid },
      redact: {
        paths: ['authorization', '*.authorization', '*.headers.authorization'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    (options.destination ?? pino.destination({ fd: 2, sync: false })) as DestinationStream,
  );
}

/** Writes nothing: the default of startSandbox, for tests and for callers that log themselves. */
export const silentLogger: Logger = pino({ level: 'silent' });
