import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORT_LANGUAGES } from '../../src/i18n/report-language.js';
import {
  fallbackCount,
  readerLanguages,
  type DivisionWithManagers,
} from '../../src/notify/reader-languages.js';

let nextId = 1;
/** A manager who gets mail unless told otherwise. */
function manager(
  lang: string | null | undefined,
  more: Partial<{ active: boolean; inviteAccepted: boolean; login: string }> = {},
) {
  const id = nextId++;
  return {
    id,
    active: true,
    inviteAccepted: true,
    login: `m${id}@example.com`,
    firstName: 'A',
    lastName: 'B',
    lang,
    ...more,
  };
}

describe('readerLanguages', () => {
  it('counts who reads each catalog in their own language, in the order the languages are listed', () => {
    const divisions: DivisionWithManagers[] = [
      { id: 1, dirs: [manager('ru_RU'), manager('pt_BR'), manager('en_GB')] },
      { id: 2, dirs: [manager('ru_RU'), manager('de_AT'), manager('pt_PT')] },
    ];
    const languages = readerLanguages(divisions, undefined, 'en');
    expect(languages.readers).toBe(6);
    expect(languages.divisions).toBe(2);
    expect([...languages.own]).toEqual([
      ['en', 1],
      ['ru', 2],
      ['de', 1],
      ['pt-BR', 2],
    ]);
    expect(fallbackCount(languages)).toBe(0);
  });

  it('counts who falls back: a language without a catalog by its tag, most first, and an unknown one', () => {
    const divisions: DivisionWithManagers[] = [
      {
        id: 1,
        dirs: [
          manager('kk_KZ'),
          manager('hi_IN'),
          manager('kk_KZ'),
          manager('kk_KZ'),
          manager('en\r\nBcc: everyone@example.com'),
          manager(''),
          manager(null),
        ],
      },
    ];
    const languages = readerLanguages(divisions, undefined, 'ru');
    expect(languages.fallback).toBe('ru');
    expect([...languages.noCatalog]).toEqual([
      ['kk-KZ', 3],
      ['hi-IN', 1],
    ]);
    expect(languages.unknown).toBe(3);
    expect(fallbackCount(languages)).toBe(7);
    expect(languages.own.size).toBe(0);
  });

  it('counts only managers a mail would go to; the others as getting no mail', () => {
    const divisions: DivisionWithManagers[] = [
      {
        id: 1,
        dirs: [
          manager('de_DE'),
          manager('de_DE', { active: false }),
          manager('de_DE', { inviteAccepted: false }),
          manager('de_DE', { login: 'not-an-address' }),
        ],
      },
    ];
    const languages = readerLanguages(divisions, undefined, 'en');
    expect(languages.readers).toBe(1);
    expect(languages.noMail).toBe(3);
    expect([...languages.own]).toEqual([['de', 1]]);
  });

  it('counts a person who manages several divisions once, mailed if any of their divisions mails them', () => {
    const anna = manager('ru_RU', { login: 'anna@example.com' });
    const annaAway = { ...anna, id: 99, login: 'Anna@Example.com', active: false };
    const divisions: DivisionWithManagers[] = [
      { id: 1, dirs: [anna] },
      { id: 2, dirs: [{ ...anna, login: 'ANNA@example.com' }, annaAway] },
    ];
    const languages = readerLanguages(divisions, undefined, 'en');
    expect(languages.readers).toBe(1);
    expect(languages.noMail).toBe(0);
  });

  it("counts only the divisions of the definition's filter, and names those the upstream does not list", () => {
    const divisions: DivisionWithManagers[] = [
      { id: 1, dirs: [manager('ru_RU')] },
      { id: 2, dirs: [manager('de_DE')] },
      { id: 3 },
    ];
    const languages = readerLanguages(divisions, [2, 3, 7], 'en');
    expect(languages.divisions).toBe(2);
    expect(languages.notListed).toEqual([7]);
    expect([...languages.own]).toEqual([['de', 1]]);
  });

  it('accounts for every manager who gets mail, whatever their lang: own languages and fallbacks add up', () => {
    const lang = fc.oneof(
      fc.constantFrom('ru_RU', 'de_DE', 'pt_BR', 'en_US', 'kk_KZ', 'hi_IN', null, ''),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    fc.assert(
      fc.property(
        fc.array(lang, { maxLength: 30 }),
        fc.constantFrom(...REPORT_LANGUAGES),
        (langs, fallback) => {
          const languages = readerLanguages(
            [{ id: 1, dirs: langs.map((l) => manager(l)) }],
            undefined,
            fallback,
          );
          const own = [...languages.own.values()].reduce((a, b) => a + b, 0);
          expect(own + fallbackCount(languages)).toBe(langs.length);
          // What may be shown of a tag: letters, digits and "-" only.
          for (const tag of languages.noCatalog.keys()) expect(tag).toMatch(/^[A-Za-z0-9-]+$/);
        },
      ),
    );
  });
});
