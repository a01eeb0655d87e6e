// Owns which languages a report can speak and how a reader's language is chosen. A language is one
// of REPORT_LANGUAGES, each with a complete catalog of every text a reader sees (the workbook, the
// mail). The upstream names a manager's language as `<language>_<REGION>` (`ru_RU`, `pt_BR`,
// `kk_KZ`): it is turned into BCP 47 first (`new Intl.Locale('ru_RU')` throws), then matched
// exactly (`pt-BR`), then by its language alone (`ru-RU` -> `ru`), and otherwise the definition's
// language serves. Anything that is not a well-formed tag (a CR/LF, an empty text, 200 characters
// of junk) counts as unknown: it never stops an export and never reaches a header.

/** The report languages, each with a complete catalog. The order is the order docs and checks list them. */
export const REPORT_LANGUAGES = ['en', 'ru', 'de', 'pt-BR'] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];

/** The language of a definition with no `lang` and no REPORT_LANG. */
export const DEFAULT_REPORT_LANGUAGE: ReportLanguage = 'en';

export function isReportLanguage(text: string): text is ReportLanguage {
  return (REPORT_LANGUAGES as readonly string[]).includes(text);
}

/** Why a reader gets the language they get (`exports check` counts these, the job result lists them). */
export type LanguageChoice =
  /** The reader's own tag has a catalog (`pt_BR` -> pt-BR, `de_DE`... see `language`). */
  | { readonly language: ReportLanguage; readonly via: 'own' }
  /** The reader's language has no catalog (`kk_KZ`): the definition's language serves. */
  | {
      readonly language: ReportLanguage;
      readonly via: 'fallback';
      readonly reason: 'no_catalog';
      readonly asked: string;
    }
  /** The upstream gave no language, or one that is not a language tag. */
  | { readonly language: ReportLanguage; readonly via: 'fallback'; readonly reason: 'unknown' };

/** Longest upstream `lang` looked at; anything longer is not a language tag. */
const MAX_TAG_LENGTH = 35;

/**
 * An upstream `lang` (`ru_RU`, `pt-br`, `de`) as a canonical BCP 47 tag (`ru-RU`, `pt-BR`, `de`);
 * undefined when it is not a well-formed tag. Only letters, digits, `_` and `-` pass, so a CR/LF,
 * a quote or a space makes it unknown.
 */
export function upstreamLanguageTag(lang: unknown): string | undefined {
  if (typeof lang !== 'string' || lang.length === 0 || lang.length > MAX_TAG_LENGTH) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(lang)) return undefined;
  try {
    return new Intl.Locale(lang.replaceAll('_', '-')).toString();
  } catch {
    return undefined;
  }
}

/** Each report language by its language subtag: `ru` -> ru, `pt` -> pt-BR. */
const BY_LANGUAGE: ReadonlyMap<string, ReportLanguage> = new Map(
  REPORT_LANGUAGES.map((l) => [new Intl.Locale(l).language, l]),
);

/**
 * The catalog a reader whose upstream `lang` is `lang` reads: their own tag when it has a catalog,
 * else the catalog of their language (`ru_RU` -> ru, `de_AT` -> de, `pt_PT` -> pt-BR: a Portuguese
 * reader reads Brazilian Portuguese more easily than English), else `fallback` (the definition's).
 */
export function chooseLanguage(lang: unknown, fallback: ReportLanguage): LanguageChoice {
  const tag = upstreamLanguageTag(lang);
  if (tag === undefined) return { language: fallback, via: 'fallback', reason: 'unknown' };
  if (isReportLanguage(tag)) return { language: tag, via: 'own' };
  const ofLanguage = BY_LANGUAGE.get(new Intl.Locale(tag).language);
  if (ofLanguage !== undefined) return { language: ofLanguage, via: 'own' };
  return { language: fallback, via: 'fallback', reason: 'no_catalog', asked: tag };
}
