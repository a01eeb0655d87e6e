// Owns what an export definition is once loaded: a report people receive, named, with when it runs
// (or on demand only), which period each run covers, what it writes where and in which language,
// for whom it is filtered and split, and how it is delivered. Every default is applied and every rule checked by the loader
// (load-export-definitions.ts), so the worker's schedules, `run --export NAME` and delivery read
// these fields as they are. Frozen, like the config.

import type { ExportFormat } from '../domain/export-format.js';
import type { ParsedDestination } from '../destination-address.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import type { DefinitionSchedule } from './next-runs.js';
import type { PeriodRule } from './period-rule.js';

/** `to:` of an e-mail delivery that sends each division's files to that division's managers. */
export const DIVISION_MANAGERS = 'division-managers';

/** What an e-mail attaches when its definition does not say. */
export const DEFAULT_ATTACH: readonly ExportFormat[] = Object.freeze(['xlsx']);

export type EmailWhen = 'always' | 'changed';

export interface EmailDelivery {
  /** Addresses, or DIVISION_MANAGERS (which the loader allows only with `split: division`). */
  readonly to: readonly string[] | typeof DIVISION_MANAGERS;
  readonly cc: readonly string[];
  /** Formats attached to the mail; each among the definition's formats. Default [xlsx]. */
  readonly attach: readonly ExportFormat[];
  /** `changed`: only when the export's rows differ from the previous export of the period. */
  readonly when: EmailWhen;
  /**
   * The definition's `lang`: the language of the mail to a list of addresses, and of a division
   * manager whose own upstream `lang` has no catalog or is not a language tag. Carried here so that
   * what delivery is handed (MailSettings) is this object as the loader made it.
   */
  readonly lang: ReportLanguage;
}

export interface Delivery {
  readonly email: EmailDelivery | undefined;
  /**
   * Webhook URLs, POSTed like NOTIFY_WEBHOOK_URL's (same events, signature and retries). A URL may
   * carry a secret in its path or userinfo: show it only through shownWebhook().
   */
  readonly webhooks: readonly string[];
}

/** Only the shifts of these divisions, regions and shops (each list absent: no condition on it). */
export interface DefinitionFilter {
  readonly divisions: readonly number[] | undefined;
  readonly regions: readonly number[] | undefined;
  readonly shops: readonly number[] | undefined;
}

export interface ExportDefinition {
  /** `[a-z0-9-]{1,64}`, unique: the Job Scheduler is `export:<name>`, `run --export <name>`. */
  readonly name: string;
  /** Undefined: the definition runs on demand only. */
  readonly schedule: DefinitionSchedule | undefined;
  readonly period: PeriodRule;
  /** Days before yesterday exported again by each run (a `yesterday` period only; else 0). */
  readonly lookbackDays: number;
  readonly formats: readonly ExportFormat[];
  /**
   * The language of what readers see (`lang`, default REPORT_LANG): the unsplit files, the mail to
   * fixed addresses, and every manager whose own language has no catalog. Column names, file names
   * and manifest keys stay as they are in every language.
   */
  readonly lang: ReportLanguage;
  /** The destination as written (or defaulted to `<EXPORT_DEST>/<name>`). */
  readonly dest: string;
  /** `dest` parsed, a relative folder resolved against the working folder; inside the allowed roots. */
  readonly destination: ParsedDestination;
  /**
   * True for the definition made of the legacy settings: its dest is EXPORT_DEST itself, which its
   * jobs leave out of their data (as the nightly jobs always did) so that each worker resolves it.
   */
  readonly destIsExportDest: boolean;
  readonly filter: DefinitionFilter | undefined;
  readonly split: 'division' | undefined;
  readonly deliver: Delivery | undefined;
}

/** Where a set of definitions came from: EXPORTS_FILE, or the legacy NIGHTLY_* settings. */
export type DefinitionsSource =
  { readonly kind: 'file'; readonly file: string } | { readonly kind: 'settings' };

export interface ExportDefinitions {
  readonly source: DefinitionsSource;
  /** In file order. */
  readonly definitions: readonly ExportDefinition[];
}

/** The time zone a definition's period is computed in: its schedule's, UTC without one. */
export function periodTimeZone(definition: Pick<ExportDefinition, 'schedule'>): string {
  return definition.schedule?.tz ?? 'UTC';
}

export function findDefinition(set: ExportDefinitions, name: string): ExportDefinition | undefined {
  return set.definitions.find((d) => d.name === name);
}

/** The names of the definitions that deliver e-mail (`deliver.email`): what needs SMTP_URL. */
export function definitionsWithEmail(set: ExportDefinitions): string[] {
  return set.definitions.filter((d) => d.deliver?.email !== undefined).map((d) => d.name);
}

/** A webhook URL as output may show it: scheme and host, the path (which may be a secret) elided. */
export function shownWebhook(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}/…`;
}
