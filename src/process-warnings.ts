// Owns what becomes of Node's process warnings (a library's deprecation, the AWS SDK's notice about
// the Node version): Node prints them as free text over several lines on stderr, where log shippers
// expect JSON lines. They are logged instead, one JSON line each at level warn.

import type { Logger } from './logger.js';

/** Replaces Node's printing of process warnings with one `logger.warn` line per warning. */
export function logProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    logger.warn(
      { warning: { name: warning.name, ...(warning.code === undefined ? {} : { code: warning.code }) } },
      warning.message.replace(/\s*\n\s*/g, ' ').trim(),
    );
  });
}
