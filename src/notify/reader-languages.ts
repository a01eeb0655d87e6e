// Owns counting the languages the managers of a `to: division-managers` delivery read, as
// `exports check` shows them: how many read each report language, how many fall back to the
// definition's and why (a language without a catalog, by its tag; an unknown one, only counted:
// it may hold anything, a CR/LF included), and how many get no mail at all. Pure: the divisions
// are read from the upstream by the caller. The managers counted are those a mail would go to
// (mailRecipients' rule), each person once however many of the divisions they manage.

import { chooseLanguage, REPORT_LANGUAGES, type ReportLanguage } from '../i18n/report-language.js';
import { managerProblem, type MailDivision } from './mail-recipients.js';

/** A division as read with fields=dirs, each manager with the `lang` the upstream gives (anything: chooseLanguage judges it). */
export interface DivisionWithManagers {
  readonly id: number;
  readonly dirs?:
    readonly (NonNullable<MailDivision['dirs']>[number] & { readonly lang?: unknown })[] | undefined;
}

export interface ReaderLanguages {
  /** The definition's language: the one every fallback reads. */
  readonly fallback: ReportLanguage;
  /** Divisions counted (those of the filter the upstream lists, or all it lists). */
  readonly divisions: number;
  /** Divisions of the definition's filter that the upstream does not list (mail skips them). */
  readonly notListed: readonly number[];
  /** Managers a mail would go to. */
  readonly readers: number;
  /** Managers who read a catalog of their own language, by language (REPORT_LANGUAGES' order). */
  readonly own: ReadonlyMap<ReportLanguage, number>;
  /** Managers whose language has no catalog, by their tag (canonical BCP 47: letters, digits, `-`). */
  readonly noCatalog: ReadonlyMap<string, number>;
  /** Managers whose `lang` is missing or not a language tag. */
  readonly unknown: number;
  /** Managers of these divisions who get no mail (inactive, invitation not accepted, no address). */
  readonly noMail: number;
}

/**
 * The languages of the managers of `divisions` (those of `divisionIds` when the definition's filter
 * names some, else all), for a definition whose language is `fallback`.
 */
export function readerLanguages(
  divisions: readonly DivisionWithManagers[],
  divisionIds: readonly number[] | undefined,
  fallback: ReportLanguage,
): ReaderLanguages {
  const byId = new Map(divisions.map((d) => [d.id, d]));
  const counted = divisionIds === undefined ? divisions : divisionIds.flatMap((id) => byId.get(id) ?? []);
  const notListed = divisionIds === undefined ? [] : divisionIds.filter((id) => !byId.has(id));
  const own = new Map<ReportLanguage, number>();
  const noCatalog = new Map<string, number>();
  const seen = new Set<string>();
  const left = new Set<string>();
  let unknown = 0;
  for (const division of counted) {
    for (const manager of division.dirs ?? []) {
      // A person is counted once, by login, as mail tells them apart.
      const person = manager.login.toLowerCase();
      if (managerProblem(manager) !== undefined) {
        left.add(person);
        continue;
      }
      if (seen.has(person)) continue;
      seen.add(person);
      const choice = chooseLanguage(manager.lang, fallback);
      if (choice.via === 'own') own.set(choice.language, (own.get(choice.language) ?? 0) + 1);
      else if (choice.reason === 'no_catalog')
        noCatalog.set(choice.asked, (noCatalog.get(choice.asked) ?? 0) + 1);
      else unknown++;
    }
  }
  // Someone left out in one division but mailed in another gets mail.
  for (const person of seen) left.delete(person);
  return {
    fallback,
    divisions: counted.length,
    notListed,
    readers: seen.size,
    own: new Map(REPORT_LANGUAGES.flatMap((l) => (own.has(l) ? [[l, own.get(l) ?? 0] as const] : []))),
    noCatalog: new Map([...noCatalog].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))),
    unknown,
    noMail: left.size,
  };
}

/** Managers who read the definition's language because theirs has no catalog or is unknown. */
export function fallbackCount(languages: ReaderLanguages): number {
  let count = languages.unknown;
  for (const n of languages.noCatalog.values()) count += n;
  return count;
}
