// Owns the rules that join the fields of a definition, or a definition and the settings: look-back
// days only with `yesterday`, a period no longer than EXPORT_MAX_DAYS, `division-managers` only
// with `split: division`, attachments among the formats written, and a dest a destination can be.
// An entry that keeps them becomes an ExportDefinition with every default applied (REPORT_LANG for
// a definition without `lang`). The rules
// between definitions (names, dests) and the allowed roots are the loader's.

import type { ExportConfig } from '../config/export-config.js';
import { parseDestination } from '../destination-address.js';
import { ShiftExportError } from '../errors.js';
import type { DefinitionEntry } from './definition-schema.js';
import { canonicalFormats, shown } from './definition-schema.js';
import {
  DEFAULT_ATTACH,
  DIVISION_MANAGERS,
  type Delivery,
  type ExportDefinition,
} from './export-definition.js';
import { maxDaysOfRule, periodRuleText } from './period-rule.js';

/** A problem of one entry: its path below `exports[i]`. */
export interface EntryProblem {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export type EntrySettings = Pick<ExportConfig, 'dest' | 'formats' | 'maxDays' | 'reportLang'>;

/** `<EXPORT_DEST>/<name>`: a definition's own folder (or S3 prefix) under the export root. */
export function defaultDest(exportDest: string, name: string): string {
  return `${exportDest.replace(/\/+$/, '')}/${name}`;
}

export function resolveEntry(
  entry: DefinitionEntry,
  settings: EntrySettings,
): { readonly definition?: ExportDefinition; readonly problems: readonly EntryProblem[] } {
  const problems: EntryProblem[] = [];
  const rule = periodRuleText(entry.period);
  if (entry.lookback_days !== undefined && entry.period.kind !== 'yesterday') {
    problems.push({
      path: ['lookback_days'],
      message: `only a period of yesterday looks back (this one is ${rule})`,
    });
  }
  const longest = maxDaysOfRule(entry.period);
  if (longest > settings.maxDays) {
    const covers =
      entry.period.kind === 'last-days' ? `covers ${longest} days` : `covers up to ${longest} days`;
    problems.push({
      path: ['period'],
      message: `${rule} ${covers}, more than EXPORT_MAX_DAYS (${settings.maxDays})`,
    });
  }
  const formats = entry.formats ?? settings.formats;
  const lang = entry.lang ?? settings.reportLang;
  const email = entry.deliver?.email;
  if (email?.to === DIVISION_MANAGERS && entry.split !== 'division') {
    problems.push({
      path: ['deliver', 'email', 'to'],
      message: `${DIVISION_MANAGERS} needs split: division (each division's files go to its own managers)`,
    });
  }
  const attach = email?.attach === undefined ? DEFAULT_ATTACH : canonicalFormats(email.attach);
  if (
    email !== undefined &&
    email.attach === undefined &&
    !DEFAULT_ATTACH.every((f) => formats.includes(f))
  ) {
    problems.push({
      path: ['deliver', 'email', 'attach'],
      message: `is ${DEFAULT_ATTACH.join(', ')} by default, which is not among the formats written (${formats.join(', ')}): set attach`,
    });
  }
  for (const [i, format] of (email?.attach ?? []).entries()) {
    if (!formats.includes(format)) {
      problems.push({
        path: ['deliver', 'email', 'attach', i],
        message: `${format} is not among the formats written (${formats.join(', ')})`,
      });
    }
  }
  const dest = entry.dest ?? defaultDest(settings.dest, entry.name);
  let destination: ExportDefinition['destination'] | undefined;
  try {
    destination = parseDestination(dest);
  } catch (error) {
    if (!(error instanceof ShiftExportError)) throw error;
    problems.push({
      path: ['dest'],
      message: entry.dest === undefined ? `the default ${shown(dest)}: ${error.message}` : error.message,
    });
  }
  if (problems.length > 0 || destination === undefined) return { problems };

  const deliver: Delivery | undefined =
    entry.deliver === undefined
      ? undefined
      : Object.freeze({
          email:
            email === undefined
              ? undefined
              : Object.freeze({
                  to: email.to === DIVISION_MANAGERS ? DIVISION_MANAGERS : Object.freeze([...email.to]),
                  cc: Object.freeze([...email.cc]),
                  attach: Object.freeze([...attach]),
                  when: email.when,
                  lang,
                }),
          webhooks: Object.freeze([...(entry.deliver.webhook ?? [])]),
        });
  const definition: ExportDefinition = Object.freeze({
    name: entry.name,
    schedule: entry.schedule === undefined ? undefined : Object.freeze({ ...entry.schedule }),
    period: Object.freeze(entry.period),
    lookbackDays: entry.lookback_days ?? 0,
    formats: Object.freeze([...formats]),
    lang,
    dest,
    destination: Object.freeze(destination),
    destIsExportDest: false,
    filter:
      entry.filter === undefined
        ? undefined
        : Object.freeze({
            divisions: freezeIds(entry.filter.divisions),
            regions: freezeIds(entry.filter.regions),
            shops: freezeIds(entry.filter.shops),
          }),
    split: entry.split,
    deliver,
  });
  return { definition, problems };
}

function freezeIds(ids: readonly number[] | undefined): readonly number[] | undefined {
  return ids === undefined ? undefined : Object.freeze([...ids]);
}
