// The logger of a CLI command. A command speaks to a person through its own output (its result on
// stdout, one-line errors, the progress line), so at the default level its logs keep out of the
// way; a lower LOG_LEVEL (debug) shows the story as JSON lines on stderr.

import { loadLogLevel } from '../config/log-level.js';
import { createLogger, silentLogger, type Logger } from '../logger.js';
import type { CliIo } from './command.js';

/**
 * `queue`: the one-shot queue commands (`enqueue`, `status`, `backfill`) log nothing at info or
 * warn. `export`: `run` and `demo` are quiet at info only on a terminal, where the progress line
 * speaks; piped (cron, CI) their JSON lines are the record of the export.
 */
type CommandKind = 'queue' | 'export';

export function commandLogger(io: CliIo, kind: CommandKind): Logger {
  const level = loadLogLevel(io.env);
  const quiet =
    kind === 'queue' ? level === 'info' || level === 'warn' : io.stderr.isTTY === true && level === 'info';
  return quiet ? silentLogger : createLogger({ level, destination: io.stderr });
}
