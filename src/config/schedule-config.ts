// The nightly schedule group of settings: whether the worker keeps the nightly export scheduled,
// its cron pattern and time zone, and how many days before yesterday each run exports again.

import { z } from 'zod';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { hasControlCharacters } from '../one-line.js';
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
  /** Read by src/definitions/ (the file is checked there, line by line), not here. */
  exportsFile: envVar(
    'EXPORTS_FILE',
    z
      .string()
      .refine((p) => !hasControlCharacters(p), 'must not contain control characters')
      .optional(),
    'YAML file of export definitions (docs/examples/exports.yaml), each a name, schedule, period, formats, dest, filter, split and deliver; `shift-export exports check` checks it. A definition without formats or dest gets EXPORT_FORMATS and EXPORT_DEST/NAME. Set, it replaces NIGHTLY_* and LOOKBACK_DAYS; unset, one definition named nightly is made of them, EXPORT_FORMATS and EXPORT_DEST (its files stay in EXPORT_DEST itself).',
    { docDefault: '(none: the nightly definition)' },
  ),
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
