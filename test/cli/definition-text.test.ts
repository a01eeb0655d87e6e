import { describe, expect, it } from 'vitest';
import { readerLanguagesLines } from '../../src/cli/definition-text.js';
import type { ReaderLanguages } from '../../src/notify/reader-languages.js';

const languages = (more: Partial<ReaderLanguages> = {}): ReaderLanguages => ({
  fallback: 'en',
  divisions: 3,
  notListed: [],
  readers: 12,
  own: new Map([
    ['ru', 6],
    ['de', 2],
  ]),
  noCatalog: new Map([
    ['kk-KZ', 3],
    ['hi-IN', 1],
  ]),
  unknown: 1,
  noMail: 0,
  ...more,
});

describe('readerLanguagesLines', () => {
  it('says how many managers get mail, who reads which language, and who falls back and why', () => {
    expect(readerLanguagesLines(languages())).toEqual([
      '12 managers of 3 divisions get mail; in their own language: ru ×6, de ×2',
      '5 fall back to en: no catalog for kk-KZ ×3, hi-IN ×1; unknown ×1',
    ]);
  });

  it('adds who gets no mail and which divisions of the filter the upstream does not list', () => {
    expect(
      readerLanguagesLines(
        languages({
          readers: 1,
          own: new Map([['en', 1]]),
          noCatalog: new Map(),
          unknown: 0,
          noMail: 1,
          notListed: [7, 9],
        }),
      ),
    ).toEqual([
      '1 manager of 3 divisions gets mail; in their own language: en ×1',
      '1 manager gets no mail (not active, invitation not accepted or login not an address)',
      'not listed by the upstream: 2 divisions 7, 9',
    ]);
  });

  it('says "falls" for one, and leaves out a reason nobody has', () => {
    expect(readerLanguagesLines(languages({ noCatalog: new Map(), unknown: 1 }))[1]).toBe(
      '1 falls back to en: unknown ×1',
    );
    expect(readerLanguagesLines(languages({ unknown: 0 }))[1]).toBe(
      '4 fall back to en: no catalog for kk-KZ ×3, hi-IN ×1',
    );
  });

  it('says when nobody gets mail at all', () => {
    expect(
      readerLanguagesLines(
        languages({ divisions: 1, readers: 0, own: new Map(), noCatalog: new Map(), unknown: 0, noMail: 2 }),
      ),
    ).toEqual([
      '0 managers of 1 division get mail',
      '2 managers get no mail (not active, invitation not accepted or login not an address)',
    ]);
  });
});
