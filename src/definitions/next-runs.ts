// Owns when a definition's schedule runs. The pattern is read by cron-parser, the library BullMQ's
// Job Schedulers use, called as BullMQ calls it (`{ tz, currentDate }`), so that what
// `exports check` prints is what the worker's scheduler will do, daylight-saving changes included
// (a 02:30 run on the night the clocks skip 02:00–03:00 runs at 03:30 local time; on the night
// 02:30 happens twice it runs once). package.json pins cron-parser to the version BullMQ depends on,
// and test/definitions/next-runs.test.ts fails when the two part.

import { CronExpressionParser } from 'cron-parser';

/** When a definition runs: a cron pattern in an IANA time zone. */
export interface DefinitionSchedule {
  readonly cron: string;
  readonly tz: string;
}

/** A fixed instant to try a pattern from: 2001-01-01T00:00:00Z. */
const PROBE_FROM = Date.UTC(2001, 0, 1);

/**
 * Why `cron` is not a pattern to schedule, or undefined when it is: cron-parser's reason, an empty
 * pattern (which cron-parser would read as "every minute"), or an `H` field (a hashed value BullMQ
 * would draw afresh each time it computes the next run).
 */
export function cronProblem(cron: string): string | undefined {
  if (cron.trim() === '') return 'is empty';
  if (/\bH\b/i.test(cron)) return 'has an H (hashed) field, which BullMQ would draw afresh at each run';
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC', currentDate: PROBE_FROM }).next();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The next `count` runs of `schedule` after `afterMs` (milliseconds since the epoch), as
 * milliseconds since the epoch: BullMQ's own computation. The schedule must have passed cronProblem
 * and a time-zone check (the loader sees to that).
 */
export function nextRuns(schedule: DefinitionSchedule, afterMs: number, count: number): number[] {
  const expression = CronExpressionParser.parse(schedule.cron, {
    tz: schedule.tz,
    currentDate: afterMs,
  });
  const runs: number[] = [];
  for (let i = 0; i < count && expression.hasNext(); i++) runs.push(expression.next().getTime());
  return runs;
}
