import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chooseLanguage,
  DEFAULT_REPORT_LANGUAGE,
  isReportLanguage,
  REPORT_LANGUAGES,
  upstreamLanguageTag,
  type ReportLanguage,
} from '../../src/i18n/report-language.js';

describe('REPORT_LANGUAGES', () => {
  it('are English, Russian, German and Brazilian Portuguese, each a canonical BCP 47 tag', () => {
    expect(REPORT_LANGUAGES).toEqual(['en', 'ru', 'de', 'pt-BR']);
    for (const language of REPORT_LANGUAGES) expect(new Intl.Locale(language).toString()).toBe(language);
  });

  it('have one language subtag each, so that a reader of a region is never torn between two', () => {
    const subtags = REPORT_LANGUAGES.map((l) => new Intl.Locale(l).language);
    expect(new Set(subtags).size).toBe(REPORT_LANGUAGES.length);
  });

  it('default to English', () => {
    expect(DEFAULT_REPORT_LANGUAGE).toBe('en');
  });

  it('are told apart from any other text, case included', () => {
    for (const language of REPORT_LANGUAGES) expect(isReportLanguage(language)).toBe(true);
    for (const other of ['EN', 'pt', 'pt-br', 'pt_BR', 'ru_RU', 'kk', ''])
      expect(isReportLanguage(other)).toBe(false);
  });
});

describe('upstreamLanguageTag', () => {
  it("turns the upstream's <language>_<REGION> into BCP 47, which Intl.Locale would refuse as it is", () => {
    expect(() => new Intl.Locale('ru_RU')).toThrow(RangeError);
    expect(upstreamLanguageTag('ru_RU')).toBe('ru-RU');
    expect(upstreamLanguageTag('pt_BR')).toBe('pt-BR');
    expect(upstreamLanguageTag('kk_KZ')).toBe('kk-KZ');
  });

  it('writes a tag the way Intl canonicalises it, whatever its case', () => {
    expect(upstreamLanguageTag('pt-br')).toBe(new Intl.Locale('pt-br').toString());
    expect(upstreamLanguageTag('DE')).toBe('de');
  });

  it('is undefined for anything that is not a well-formed tag', () => {
    for (const lang of [
      null,
      undefined,
      42,
      '',
      ' ',
      'ru RU',
      'ru_RU\n',
      'x'.repeat(36),
      'en\r\nBcc: a@b.c',
      '_',
    ])
      expect(upstreamLanguageTag(lang)).toBeUndefined();
  });
});

describe('chooseLanguage', () => {
  const fallback: ReportLanguage = 'de';

  it('gives a reader the catalog of their own tag when there is one (pt_BR -> pt-BR)', () => {
    expect(chooseLanguage('pt_BR', fallback)).toEqual({ language: 'pt-BR', via: 'own' });
    expect(chooseLanguage('en', fallback)).toEqual({ language: 'en', via: 'own' });
  });

  it('gives a reader of a regional variant the catalog of their language (ru_RU -> ru, de_AT -> de)', () => {
    expect(chooseLanguage('ru_RU', 'en')).toEqual({ language: 'ru', via: 'own' });
    expect(chooseLanguage('de_AT', 'en')).toEqual({ language: 'de', via: 'own' });
    expect(chooseLanguage('en_GB', fallback)).toEqual({ language: 'en', via: 'own' });
  });

  it('gives a reader of European Portuguese the Brazilian catalog rather than the fallback', () => {
    expect(chooseLanguage('pt_PT', 'en')).toEqual({ language: 'pt-BR', via: 'own' });
  });

  it('falls back for a language without a catalog, and names the tag that was asked for', () => {
    expect(chooseLanguage('kk_KZ', fallback)).toEqual({
      language: fallback,
      via: 'fallback',
      reason: 'no_catalog',
      asked: 'kk-KZ',
    });
    expect(chooseLanguage('hi_IN', 'ru')).toMatchObject({ language: 'ru', reason: 'no_catalog' });
  });

  it('falls back as unknown for no language, and for text that is no language tag', () => {
    const unknown = { language: fallback, via: 'fallback', reason: 'unknown' };
    for (const lang of [
      null,
      undefined,
      '',
      '\r',
      '\n',
      'ru_RU\r\n',
      'en\r\nBcc: everyone@example.com',
      'a'.repeat(200),
      '<script>',
      'ru_RU; DROP',
    ])
      expect(chooseLanguage(lang, fallback)).toEqual(unknown);
  });

  it('never throws and always yields a report language, the fallback whenever it falls back', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.stringMatching(/^[a-z]{2,3}[_-][A-Z]{2}$/),
          fc.anything({ maxDepth: 1 }),
        ),
        fc.constantFrom(...REPORT_LANGUAGES),
        (lang, fb) => {
          const choice = chooseLanguage(lang, fb);
          expect(REPORT_LANGUAGES).toContain(choice.language);
          if (choice.via === 'fallback') expect(choice.language).toBe(fb);
        },
      ),
    );
  });

  it('counts any text with a CR or LF in it as unknown, however tag-like the rest', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.constantFrom('ru_RU', 'pt_BR', 'de', 'kk_KZ')),
        fc.constantFrom('\r', '\n', '\r\n'),
        fc.oneof(fc.string(), fc.constant('')),
        fc.constantFrom(...REPORT_LANGUAGES),
        (before, newline, after, fb) => {
          expect(chooseLanguage(`${before}${newline}${after}`, fb)).toEqual({
            language: fb,
            via: 'fallback',
            reason: 'unknown',
          });
        },
      ),
    );
  });

  it('reads the tags the sandbox gives its managers as a manager of each would expect', () => {
    // The sandbox's eight codes: each a catalog's, or a named fallback, never unknown.
    const chosen = ['ru_RU', 'en_US', 'en_GB', 'kk_KZ', 'pt_BR', 'de_DE', 'hi_IN', 'ne_NP'].map((lang) => {
      const choice = chooseLanguage(lang, 'en');
      return choice.via === 'own' ? choice.language : `${choice.reason}`;
    });
    expect(chosen).toEqual(['ru', 'en', 'en', 'no_catalog', 'pt-BR', 'de', 'no_catalog', 'no_catalog']);
  });
});
