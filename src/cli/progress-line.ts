// The live progress line of `run` and `demo` on a terminal: phase, rows, rows/s, redrawn in place
// at most a few times a second. Off a terminal there is no line; `run` logs JSON lines instead.

import type { ExportProgress } from '../export/progress.js';
import { countText } from './count-text.js';

export interface ProgressLine {
  update(progress: ExportProgress): void;
  /** Clears the line (before the final summary or an error). */
  done(): void;
}

export function createProgressLine(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  now: () => number = Date.now,
): ProgressLine {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  const started = now();
  let lastDraw = 0;
  let drawn = false;
  return {
    update(p) {
      const t = now();
      if (t - lastDraw < 200 && p.phase === 'fetching') return;
      lastDraw = t;
      const seconds = Math.max((t - started) / 1000, 0.001);
      const rate = countText(Math.round(p.rows / seconds));
      stream.write(
        `\r\x1b[K${p.phase.padEnd(10)} ${countText(p.rows)} rows  ${rate} rows/s  rejected ${countText(p.rejected)}`,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
