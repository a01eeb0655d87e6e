// The schedule group of settings: the export definitions file, and, without one, the nightly
// definition's settings: whether it is scheduled, its cron pattern and time zone, and how many days
// before yesterday each run exports again.

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
    'YAML file of export definitions (docs/examples/exports.yaml), each a name, schedule, period, formats, dest, filter, split and deliver; `shift-export exports check` checks it. A definition without formats or dest gets EXPORT_FORMATS and EXPORT_DEST/NAME. The worker loads it at start (a file with problems: exit 2, one line per problem), keeps one Job Scheduler export:NAME per definition with a schedule (its cron and tz) and removes the export:* schedulers of definitions not in the file; on SIGHUP it reads the file again (a file that fails to load keeps the schedules in force). Give every worker the same file: the schedulers are those of the worker that started or reloaded last. `run --export NAME`, `enqueue --export NAME`, POST /exports {"export": NAME} and GET /definitions read it too. Set, it replaces NIGHTLY_* and LOOKBACK_DAYS; unset, one definition named nightly is made of them, EXPORT_FORMATS and EXPORT_DEST (its files stay in EXPORT_DEST itself).',
    { docDefault: '(none: the nightly definition)' },
  ),
  enabled: envVar(
    'NIGHTLY_ENABLED',
    flag(true),
    'Without EXPORTS_FILE: whether the nightly definition is scheduled (Job Scheduler export:nightly); false removes the schedule, the definition then runs on demand only (give every worker the same value).',
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
