// The logger of the one-shot queue commands (`enqueue`, `status`, `backfill`): they speak through
// stdout and one-line errors, so at the default level they log nothing; a lower LOG_LEVEL (debug)
// shows the connection's story as JSON lines on stderr.

import { loadLogLevel } from '../config.js';
import { createLogger, silentLogger, type Logger } from '../logger.js';

export function commandLogger(
  env: Readonly<Record<string, string | undefined>>,
  stderr: NodeJS.WritableStream,
): Logger {
  const level = loadLogLevel(env);
  return level === 'info' || level === 'warn' ? silentLogger : createLogger({ level, destination: stderr });
}
