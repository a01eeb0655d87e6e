import { describe, expect, it } from 'vitest';
import { MAIL_CATALOGS } from '../../src/i18n/mail/mail-catalog.js';
import { isPluralMessage, type PluralMessage } from '../../src/i18n/plural.js';
import { REPORT_LANGUAGES } from '../../src/i18n/report-language.js';
import { textFormat } from '../../src/i18n/text-format.js';

/** Every text of a catalog with its path (`labels.shifts`), plural messages as themselves. */
function entries(value: unknown, path = ''): [string, string | PluralMessage][] {
  if (typeof value === 'string' || isPluralMessage(value)) return [[path, value]];
  return Object.entries(value as object).flatMap(([k, v]) => entries(v, path === '' ? k : `${path}.${k}`));
}

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

describe('the mail catalogs', () => {
  const english = new Map(entries(MAIL_CATALOGS.en));

  it.each(REPORT_LANGUAGES)('%s has every text of English, with the same placeholders', (language) => {
    const own = new Map(entries(MAIL_CATALOGS[language]));
    expect([...own.keys()]).toEqual([...english.keys()]);
    for (const [path, text] of own) {
      const theirs = english.get(path)!;
      const words = (t: string | PluralMessage): string => (typeof t === 'string' ? t : t.plural.other);
      expect(placeholders(words(text)), `${language} ${path}`).toEqual(placeholders(words(theirs)));
    }
  });

  it.each(REPORT_LANGUAGES)(
    "%s gives every plural message exactly its language's CLDR categories",
    (language) => {
      const categories = [...new Intl.PluralRules(language).resolvedOptions().pluralCategories].sort();
      for (const [path, text] of entries(MAIL_CATALOGS[language]))
        if (isPluralMessage(text))
          expect(Object.keys(text.plural).sort(), `${language} ${path}`).toEqual(categories);
    },
  );

  it.each(REPORT_LANGUAGES.filter((l) => l !== 'en'))('%s leaves no English sentence behind', (language) => {
    const own = new Map(entries(MAIL_CATALOGS[language]));
    // Texts that are the same in every language: placeholders only, or units and names of settings.
    const same = new Set([
      'subject',
      'subjectWithSummary',
      'title',
      'fileWhat',
      'sizeUnits.bytes',
      'sizeUnits.kilobytes',
      'sizeUnits.megabytes',
      'divisionLabel',
      'columns.region',
      'columns.division',
      'unnamedDivision',
    ]);
    for (const [path, text] of english)
      if (!same.has(path) && typeof text === 'string')
        expect(own.get(path), `${language} ${path}`).not.toBe(text);
  });

  it('counts Russian shifts as 1 смена, 2 смены, 5 смен, 1,5 смены', () => {
    const f = textFormat('ru');
    expect([1, 2, 5, 21, 1.5].map((n) => f.count(MAIL_CATALOGS.ru.shifts, n))).toEqual([
      '1 смена',
      '2 смены',
      '5 смен',
      '21 смена',
      '1,5 смены',
    ]);
  });
});
