// The report a sandbox serves, without HTTP: the same generator as a running sandbox with the
// same seed, rows, endDate and days, so tests can compute expected results (counts, statistics) in
// process, row by row, in constant memory.

import { formatDay, parseDay } from 'wfm-contract/civil-time';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import { generateWorld } from './generate-world.js';
import { SANDBOX_DEFAULTS } from './sandbox-defaults.js';
import { SandboxConfigError } from './sandbox-error.js';
import { ShiftGenerator } from './shift-generator.js';
import { ShiftRow, toFinishedShift } from './shift-row.js';

export interface SandboxReportOptions {
  readonly seed?: number;
  readonly rows?: number;
  /** YYYY-MM-DD; required here (a running sandbox defaults to yesterday). */
  readonly endDate: string;
  readonly days?: number;
  readonly longComment?: { readonly every: number; readonly bytes: number };
}

/** The rows of the report, in id order, generated when asked for. */
export interface SandboxReport {
  readonly rows: number;
  readonly firstDate: string;
  readonly lastDate: string;
  /** Row i (0 ≤ i < rows) as the report sends it, in id order. */
  row(index: number): FinishedShift;
  /** Every row in id order, generated lazily. */
  [Symbol.iterator](): Iterator<FinishedShift>;
}

export function createSandboxReport(options: SandboxReportOptions): SandboxReport {
  const seed = options.seed ?? SANDBOX_DEFAULTS.seed;
  const rows = options.rows ?? SANDBOX_DEFAULTS.rows;
  const lastDay = parseDay(options.endDate);
  if (lastDay === undefined)
    throw new SandboxConfigError(`endDate "${options.endDate}" is not a date (YYYY-MM-DD)`);
  const firstDay = lastDay - (options.days ?? SANDBOX_DEFAULTS.days) + 1;
  const generator = new ShiftGenerator(generateWorld(seed, rows), {
    seed,
    rows,
    firstDay,
    lastDay,
    longComment: options.longComment,
  });
  const scratch = new ShiftRow();
  const row = (index: number): FinishedShift => {
    if (!Number.isInteger(index) || index < 0 || index >= rows) throw new RangeError(`no row ${index}`);
    generator.fill(index, scratch);
    return toFinishedShift(scratch);
  };
  return {
    rows,
    firstDate: formatDay(firstDay),
    lastDate: formatDay(lastDay),
    row,
    *[Symbol.iterator]() {
      for (let i = 0; i < rows; i++) yield row(i);
    },
  };
}
