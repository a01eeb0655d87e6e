// Every group of settings, in the order docs/configuration.md and .env.example list them, each under
// its heading; and, read from their declarations, the name, default and meaning of every variable
// shift-export reads (ENV_DOCS).

import { apiVariables } from './api-config.js';
import { docOf, variablesOf, type Declaration, type NamesOf, type VarDoc } from './env-var.js';
import { exportVariables } from './export-config.js';
import { logVariables } from './log-level.js';
import { notifyVariables } from './notify-config.js';
import { queueVariables } from './queue-config.js';
import { queueTuningVariables } from './queue-tuning.js';
import { s3Variables } from './s3-config.js';
import { scheduleVariables } from './schedule-config.js';
import { smtpVariables } from './smtp-config.js';
import { wfmVariables } from './wfm-config.js';

export const CONFIG_GROUPS = [
  { heading: 'WFM API: where the report comes from and how it is read', variables: wfmVariables },
  { heading: 'Exports: destination, formats, CSV and workbook', variables: exportVariables },
  { heading: 'S3 (when a destination is s3://bucket/prefix)', variables: s3Variables },
  { heading: 'Redis and the job queue', variables: queueVariables },
  { heading: 'Waiting for Redis, job locks and stalled jobs', variables: queueTuningVariables },
  { heading: 'Export definitions and the nightly schedule', variables: scheduleVariables },
  { heading: 'Control API and dashboard', variables: apiVariables },
  { heading: 'Notifications (webhooks)', variables: notifyVariables },
  { heading: 'E-mail delivery (SMTP)', variables: smtpVariables },
  { heading: 'Logging', variables: logVariables },
] as const;

type AllVariables = (typeof CONFIG_GROUPS)[number]['variables'];
export type EnvName = AllVariables extends infer D ? (D extends Declaration ? NamesOf<D> : never) : never;

/** Every environment variable shift-export reads: default (as text) and meaning. */
export const ENV_DOCS: Readonly<Record<EnvName, VarDoc>> = Object.freeze(
  Object.fromEntries(
    CONFIG_GROUPS.flatMap((group) => variablesOf(group.variables)).map((v) => [v.name, docOf(v)]),
  ) as Record<EnvName, VarDoc>,
);
