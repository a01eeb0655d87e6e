// Owns what a run of an export definition hands to the export: one export per period of the run
// (definition-runs.ts), each in the definition's formats, to its dest, named after it, with its
// filter and split. The worker's scheduled runs, `run --export`, `enqueue --export` and
// `POST /exports {"export": …}` all start here, so that a run asked for by hand is the run the
// schedule would make. The legacy `nightly` definition (no EXPORTS_FILE) keeps today's exports: no
// dest (each worker's EXPORT_DEST) and no name, so its jobs are the ids they always were, joined
// with an on-demand export of the same day to EXPORT_DEST.

import { parseDay } from 'wfm-contract/civil-time';
import type { ExportFormat } from '../domain/export-format.js';
import type { Period } from '../domain/period.js';
import type { RowFilter } from '../domain/row-filter.js';
import { InvalidRequestError } from '../errors.js';
import { oneLine } from '../one-line.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import {
  DIVISION_MANAGERS,
  findDefinition,
  periodTimeZone,
  type ExportDefinition,
  type ExportDefinitions,
} from './export-definition.js';
import { localDay } from './zoned-time.js';

/** One export of a definition's run: what becomes one export job (or one `run --export` export). */
export interface DefinitionExport {
  readonly period: Period;
  readonly formats: readonly ExportFormat[];
  /** undefined: the worker's EXPORT_DEST (the legacy nightly definition). */
  readonly dest: string | undefined;
  /** The definition's name as the job names it; undefined for the legacy nightly definition. */
  readonly definition: string | undefined;
}

/** The exports of a run of `definition` covering `periods`. */
export function definitionExports(
  definition: ExportDefinition,
  periods: readonly Period[],
): DefinitionExport[] {
  const legacy = definition.destIsExportDest;
  return periods.map((period) => ({
    period,
    formats: definition.formats,
    dest: legacy ? undefined : definition.dest,
    definition: legacy ? undefined : definition.name,
  }));
}

/** The definition's filter as the export takes it (a list absent: no condition on it). */
export function rowFilterOf(definition: Pick<ExportDefinition, 'filter'>): RowFilter | undefined {
  const filter = definition.filter;
  if (filter === undefined) return undefined;
  return {
    ...(filter.divisions === undefined ? {} : { divisions: filter.divisions }),
    ...(filter.regions === undefined ? {} : { regions: filter.regions }),
    ...(filter.shops === undefined ? {} : { shops: filter.shops }),
  };
}

/**
 * The filter, split and language an export of `definition` runs with, for an ExportScope; a split
 * mailed to each division's managers also writes each division's workbook in their languages.
 */
export function exportScopeOf(
  definition: Pick<ExportDefinition, 'filter' | 'split' | 'lang'> & {
    readonly deliver?: Pick<NonNullable<ExportDefinition['deliver']>, 'email'> | undefined;
  },
): {
  readonly filter?: RowFilter;
  readonly split?: 'division';
  readonly lang: ReportLanguage;
  readonly readers?: 'division-managers';
} {
  const filter = rowFilterOf(definition);
  const toManagers = definition.split === 'division' && definition.deliver?.email?.to === DIVISION_MANAGERS;
  return {
    ...(filter === undefined ? {} : { filter }),
    ...(definition.split === undefined ? {} : { split: definition.split }),
    lang: definition.lang,
    ...(toManagers ? { readers: 'division-managers' as const } : {}),
  };
}

/**
 * The local date a run asked for by hand counts from: `date` (YYYY-MM-DD), else today in the
 * definition's time zone. `field` names the flag or body member in the message.
 */
export function runDayOf(
  definition: Pick<ExportDefinition, 'schedule'>,
  date: string | undefined,
  field: string,
  nowMs: number,
): number {
  if (date === undefined) return localDay(nowMs, periodTimeZone(definition));
  const day = parseDay(date);
  if (day === undefined)
    throw new InvalidRequestError(
      `${field} ${JSON.stringify(oneLine(date))} is not a real date as YYYY-MM-DD`,
    );
  return day;
}

/**
 * The definition named `name`, or a REQUEST_INVALID error on one line naming the known ones, with
 * the closest as a "did you mean" when `closest` (the CLI's typo finder, passed in) finds one.
 */
export function requireDefinition(
  set: ExportDefinitions,
  name: string,
  closest: (typed: string, names: readonly string[]) => string | undefined = () => undefined,
): ExportDefinition {
  const found = findDefinition(set, name);
  if (found !== undefined) return found;
  const names = set.definitions.map((d) => d.name);
  const meant = closest(name, names);
  const where = set.source.kind === 'file' ? set.source.file : 'the settings (no EXPORTS_FILE)';
  throw new InvalidRequestError(
    `no export definition ${JSON.stringify(oneLine(name))} in ${where}${meant === undefined ? '' : `; did you mean "${meant}"?`} (known: ${names.join(', ')})`,
  );
}
