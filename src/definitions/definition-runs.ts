// Owns what one run of a definition exports: the run's instant is put on the local date of the
// definition's time zone, and its period rule (period-rule.ts) turns that date into periods. The
// worker's scheduled runs pass the scheduler's slot; `run --export NAME --date D` passes D.

import type { Period } from '../domain/period.js';
import { periodTimeZone, type ExportDefinition } from './export-definition.js';
import { nextRuns } from './next-runs.js';
import { periodsOfRun } from './period-rule.js';
import { localDay } from './zoned-time.js';

type RunRule = Pick<ExportDefinition, 'period' | 'lookbackDays'>;

/** The periods a run on local date `runDay` (days since 1970-01-01) exports: the rule's, then look-back days. */
export function periodsOnRunDay(definition: RunRule, runDay: number): Period[] {
  return periodsOfRun(definition.period, definition.lookbackDays, runDay);
}

/** The periods a run at `atMs` (milliseconds since the epoch) exports, its date read in the definition's zone. */
export function periodsOfRunAt(
  definition: RunRule & Pick<ExportDefinition, 'schedule'>,
  atMs: number,
): Period[] {
  return periodsOnRunDay(definition, localDay(atMs, periodTimeZone(definition)));
}

export interface UpcomingRun {
  /** When the scheduler fires, milliseconds since the epoch. */
  readonly at: number;
  readonly periods: readonly Period[];
}

/** The next `count` scheduled runs after `afterMs` and what each exports; none without a schedule. */
export function upcomingRuns(definition: ExportDefinition, afterMs: number, count: number): UpcomingRun[] {
  if (definition.schedule === undefined) return [];
  return nextRuns(definition.schedule, afterMs, count).map((at) => ({
    at,
    periods: periodsOfRunAt(definition, at),
  }));
}
