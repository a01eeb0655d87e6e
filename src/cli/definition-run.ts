// What `run --export NAME [--date D]` and `enqueue --export NAME [--date D]` share: the export
// definitions loaded as the worker loads them, NAME found (a typo gets a "did you mean"), and the
// exports of the run the definition's schedule would make on local date D (default: today in its
// time zone). The flags of a period (--from, --to, --format, --dest) belong to the other form.

import { loadExportConfig, type ExportConfig } from '../config/export-config.js';
import { loadScheduleConfig } from '../config/schedule-config.js';
import {
  definitionExports,
  requireDefinition,
  runDayOf,
  type DefinitionExport,
} from '../definitions/definition-exports.js';
import { periodsOnRunDay } from '../definitions/definition-runs.js';
import type { ExportDefinition } from '../definitions/export-definition.js';
import { requireExportDefinitions } from '../definitions/load-export-definitions.js';
import { formatDay } from 'wfm-contract/civil-time';
import { closestName } from './closest-name.js';
import type { CliIo } from './command.js';
import { UsageError } from './command.js';
import { PERIOD_FLAGS } from './export-request-flags.js';

export interface DefinitionRun {
  readonly definition: ExportDefinition;
  /** The run's local date, YYYY-MM-DD. */
  readonly date: string;
  readonly exports: readonly DefinitionExport[];
  readonly exportConfig: ExportConfig;
}

/** The flags that name a definition's run instead of a period: `run` and `enqueue`. */
export const DEFINITION_FLAGS = {
  export: { type: 'string' },
  date: { type: 'string' },
} as const;

/** Refuses the flags of the period form (PERIOD_FLAGS) beside --export: one or the other. */
export function refusePeriodFlags(command: string, values: Readonly<Record<string, unknown>>): void {
  const given = Object.keys(PERIOD_FLAGS).filter((flag) => values[flag] !== undefined);
  if (given.length > 0)
    throw new UsageError(
      `${command}: --export takes its period, formats and dest from the definition; drop ${given.map((f) => `--${f}`).join(', ')}`,
    );
}

/** The run of the definition `name` on `date` (default: today in its time zone). */
export async function definitionRun(
  name: string,
  date: string | undefined,
  io: CliIo,
  now: number = Date.now(),
): Promise<DefinitionRun> {
  const exportConfig = loadExportConfig(io.env);
  const schedule = loadScheduleConfig(io.env);
  const set = await requireExportDefinitions({ schedule, exportConfig });
  const definition = requireDefinition(set, name, closestName);
  const day = runDayOf(definition, date, '--date', now);
  return {
    definition,
    date: formatDay(day),
    exports: definitionExports(definition, periodsOnRunDay(definition, day)),
    exportConfig,
  };
}
