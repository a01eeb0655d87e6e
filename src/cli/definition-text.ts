// Export definitions as `exports check` prints them: a header naming where they came from, then one
// block per definition — its period rule in words, its schedule and next runs on the wall clock of
// its time zone with the dates each run exports, and what it writes where, in which language, for
// whom and how it is delivered; for one that mails division managers, the languages they read when
// the upstream was read. Text from the file goes through oneLine(); webhook URLs show scheme and
// host only; an upstream `lang` is shown only when it is a well-formed tag, an unknown one counted.

import type { Period } from '../domain/period.js';
import { upcomingRuns, periodsOfRunAt } from '../definitions/definition-runs.js';
import {
  periodTimeZone,
  shownWebhook,
  type ExportDefinition,
  type ExportDefinitions,
} from '../definitions/export-definition.js';
import { describePeriodRule, periodRuleText } from '../definitions/period-rule.js';
import { formatZoned } from '../definitions/zoned-time.js';
import type { ParsedDestination } from '../destination-address.js';
import { fallbackCount, type ReaderLanguages } from '../notify/reader-languages.js';
import { oneLine } from '../one-line.js';

/** How many scheduled runs `exports check` shows. */
export const NEXT_RUN_COUNT = 3;

const LABEL_WIDTH = 12;

function periodText(period: Period): string {
  return period.from === period.to ? period.from : `${period.from}..${period.to}`;
}

/** What one run exports: `2026-11-23..2026-11-29`, or yesterday then `again` its look-back days. */
export function runPeriodsText(periods: readonly Period[]): string {
  const [first, ...again] = periods;
  if (first === undefined) return '';
  return again.length === 0
    ? periodText(first)
    : `${periodText(first)}, again ${again.map(periodText).join(', ')}`;
}

function destinationText(destination: ParsedDestination): string {
  if (destination.kind === 'local') return destination.dir;
  return destination.prefix === ''
    ? `s3://${destination.bucket}`
    : `s3://${destination.bucket}/${destination.prefix}`;
}

function periodLine(definition: ExportDefinition): string {
  const rule = `${periodRuleText(definition.period)} (${describePeriodRule(definition.period)})`;
  if (definition.lookbackDays === 0) return rule;
  const days = definition.lookbackDays === 1 ? 'the day' : `the ${definition.lookbackDays} days`;
  return `${rule}; again ${days} before it (lookback_days)`;
}

function filterText(definition: ExportDefinition): string | undefined {
  const filter = definition.filter;
  if (filter === undefined) return undefined;
  const parts: string[] = [];
  if (filter.divisions !== undefined) parts.push(`divisions ${filter.divisions.join(', ')}`);
  if (filter.regions !== undefined) parts.push(`regions ${filter.regions.join(', ')}`);
  if (filter.shops !== undefined) parts.push(`shops ${filter.shops.join(', ')}`);
  return parts.join('; ');
}

function emailText(definition: ExportDefinition): string | undefined {
  const email = definition.deliver?.email;
  if (email === undefined) return undefined;
  const to = typeof email.to === 'string' ? email.to : email.to.join(', ');
  const cc = email.cc.length === 0 ? '' : `, cc ${email.cc.join(', ')}`;
  return `to ${to}${cc}; attach ${email.attach.join(', ')}; when ${email.when}`;
}

const counted = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * What its managers read, in lines: who reads which catalog, who falls back to the definition's
 * language and why, who gets no mail, and divisions of the filter the upstream does not list.
 */
export function readerLanguagesLines(languages: ReaderLanguages): string[] {
  const own = [...languages.own].map(([language, n]) => `${language} ×${n}`);
  const lines = [
    `${counted(languages.readers, 'manager', 'managers')} of ${counted(languages.divisions, 'division', 'divisions')} ${languages.readers === 1 ? 'gets' : 'get'} mail` +
      (own.length === 0 ? '' : `; in their own language: ${own.join(', ')}`),
  ];
  const fallbacks = fallbackCount(languages);
  if (fallbacks > 0) {
    const tags = [...languages.noCatalog].map(([tag, n]) => `${tag} ×${n}`);
    const why = tags.length === 0 ? [] : [`no catalog for ${tags.join(', ')}`];
    if (languages.unknown > 0) why.push(`unknown ×${languages.unknown}`);
    lines.push(
      `${fallbacks} ${fallbacks === 1 ? 'falls' : 'fall'} back to ${languages.fallback}: ${why.join('; ')}`,
    );
  }
  if (languages.noMail > 0)
    lines.push(
      `${counted(languages.noMail, 'manager gets', 'managers get')} no mail (not active, invitation not accepted or login not an address)`,
    );
  if (languages.notListed.length > 0)
    lines.push(
      `not listed by the upstream: ${counted(languages.notListed.length, 'division', 'divisions')} ${languages.notListed.join(', ')}`,
    );
  return lines;
}

/** One definition's block, its runs counted from `nowMs`; `readers`: its managers' languages. */
export function formatDefinition(
  definition: ExportDefinition,
  nowMs: number,
  readers?: ReaderLanguages,
): string {
  const lines: string[] = [oneLine(definition.name)];
  const field = (label: string, value: string, more: readonly string[] = []): void => {
    lines.push(`  ${`${label}:`.padEnd(LABEL_WIDTH)}${oneLine(value)}`);
    for (const line of more) lines.push(`  ${' '.repeat(LABEL_WIDTH)}${oneLine(line)}`);
  };
  field('period', periodLine(definition));
  const schedule = definition.schedule;
  if (schedule === undefined) {
    field('schedule', 'none: on demand only');
    const tz = periodTimeZone(definition);
    field(
      'a run now',
      `${formatZoned(nowMs, tz)} (${tz})  ${runPeriodsText(periodsOfRunAt(definition, nowMs))}`,
    );
  } else {
    field('schedule', `${schedule.cron} in ${schedule.tz}`);
    const runs = upcomingRuns(definition, nowMs, NEXT_RUN_COUNT).map(
      (run) => `${formatZoned(run.at, schedule.tz)}  ${runPeriodsText(run.periods)}`,
    );
    const [first, ...more] = runs;
    field('next runs', first ?? 'none', more);
  }
  field('formats', definition.formats.join(', '));
  field('language', definition.lang);
  field('dest', destinationText(definition.destination));
  const filter = filterText(definition);
  if (filter !== undefined) field('filter', filter);
  if (definition.split !== undefined) field('split', definition.split);
  const email = emailText(definition);
  if (email !== undefined) field('e-mail', email);
  if (readers !== undefined) {
    const [first, ...more] = readerLanguagesLines(readers);
    field('readers', first ?? '', more);
  }
  const webhooks = definition.deliver?.webhooks ?? [];
  if (webhooks.length > 0) field('webhook', webhooks.map(shownWebhook).join(', '));
  return lines.join('\n');
}

/**
 * What `exports check` prints for a valid set: the header, then each definition's block; `readers`:
 * the languages of the managers of the definitions that mail division managers, by name.
 */
export function formatDefinitions(
  set: ExportDefinitions,
  nowMs: number,
  readers: ReadonlyMap<string, ReaderLanguages> = new Map(),
): string {
  const count = set.definitions.length;
  const noun = count === 1 ? 'export definition' : 'export definitions';
  const header =
    set.source.kind === 'file'
      ? `${oneLine(set.source.file)}: ${count} ${noun}`
      : `EXPORTS_FILE is not set: ${count} ${noun}, made of NIGHTLY_*, LOOKBACK_DAYS, EXPORT_FORMATS and EXPORT_DEST`;
  return [header, ...set.definitions.map((d) => `\n${formatDefinition(d, nowMs, readers.get(d.name))}`)].join(
    '\n',
  );
}
