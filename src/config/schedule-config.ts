// The nightly schedule group of settings: whether the worker keeps the nightly export scheduled,
// its cron pattern and time zone, and how many days before yesterday each run exports again.

import { z } from 'zod';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { flag, int } from './variable-schemas.js';

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const scheduleVariables = {
  enabled: envVar(
    'NIGHTLY_ENABLED',
    flag(true),
    'Whether the worker upserts the nightly schedule; false removes it (give every worker the same value).',
  ),
  cron: envVar(
    'NIGHTLY_CRON',
    z
      .string()
      .regex(/^\S+( \S+){4,5}$/, 'must be a cron pattern of 5 or 6 fields')
      .default('0 3 * * *'),
    'Cron pattern of the nightly export.',
  ),
  tz: envVar(
    'NIGHTLY_TZ',
    z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').default('UTC'),
    'IANA time zone of NIGHTLY_CRON and of "yesterday".',
  ),
  lookbackDays: envVar(
    'LOOKBACK_DAYS',
    int(0, 60, 2),
    'Days before yesterday that each nightly run exports again (late shifts).',
  ),
};

export type ScheduleConfig = Loaded<typeof scheduleVariables>;

export function loadScheduleConfig(env: Env): ScheduleConfig {
  return loadDeclared(env, scheduleVariables);
}
