// The logger of a CLI command. A command speaks to a person through its own output (its result on
// stdout, one-line errors, the progress line), so at the default level its logs keep out of the
// way; LOG_LEVEL, when set, asks for the story as JSON lines on stderr.

import { loadLogLevel } from '../config/log-level.js';
import { createLogger, silentLogger, type Logger } from '../logger.js';
import type { CliIo } from './command.js';

/**
 * `queue`: the one-shot queue commands (`enqueue`, `status`, `backfill`) log nothing at info or
 * warn, set or not (containers set LOG_LEVEL=info for the worker, and `status` is run beside it).
 * `run`: quiet on a terminal, where the progress line speaks, unless LOG_LEVEL is set; piped (cron,
 * CI) its JSON lines at info are the record of the export.
 * `demo`: quiet unless LOG_LEVEL is set, on a terminal or not: a first run reads its summary, and
 * no automation keeps a record of a demonstration.
 */
export type CommandKind = 'queue' | 'run' | 'demo';

export function commandLogger(io: CliIo, kind: CommandKind): Logger {
  const level = loadLogLevel(io.env);
  // LOG_LEVEL is validated by loadLogLevel; here only whether the person running us set it.
  const chosen = (io.env['LOG_LEVEL'] ?? '') !== '';
  const quiet =
    kind === 'queue'
      ? level === 'info' || level === 'warn'
      : !chosen && (kind === 'demo' || io.stderr.isTTY === true);
  return quiet ? silentLogger : createLogger({ level, destination: io.stderr });
}
