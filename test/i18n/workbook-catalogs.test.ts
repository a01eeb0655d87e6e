// The workbook's catalogs hold for every report language what a reader would otherwise find in
// Excel: a text for every declared column, sheet names Excel accepts, plurals for each of the
// language's CLDR categories, the placeholders the writer fills, and no English left over.

import { describe, expect, it } from 'vitest';
import type { Column } from '../../src/domain/column.js';
import { REJECTED_COLUMNS } from '../../src/domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import { QUALITY_FLAGS } from '../../src/domain/shift-record.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../src/domain/summary-columns.js';
import { isPluralMessage, type PluralMessage } from '../../src/i18n/plural.js';
import { REPORT_LANGUAGES, type ReportLanguage } from '../../src/i18n/report-language.js';
import { textFormat } from '../../src/i18n/text-format.js';
import { en } from '../../src/i18n/workbook/en.js';
import { WORKBOOK_CATALOGS } from '../../src/i18n/workbook/workbook-catalog.js';
import type { SummarySheetKey } from '../../src/i18n/workbook/workbook-messages.js';
import { SUMMARY_STAT_NAMES } from '../../src/render/xlsx/summary-sheets.js';

const names = (columns: readonly Column<never>[], only: (name: string) => boolean = () => true): string[] =>
  columns
    .map((c) => c.name)
    .filter(only)
    .sort();
const isKey = (name: string): boolean => !SUMMARY_STAT_NAMES.has(name);
const SUMMARY_KEYS: Readonly<Record<SummarySheetKey, readonly Column<never>[]>> = {
  byDivision: DIVISION_SUMMARY_COLUMNS,
  byDay: DAY_SUMMARY_COLUMNS,
  byRegion: REGION_SUMMARY_COLUMNS,
  byShop: SHOP_SUMMARY_COLUMNS,
  byUser: USER_SUMMARY_COLUMNS,
};
const ALL_COLUMNS: readonly Column<never>[] = [
  ...SHIFT_COLUMNS,
  ...Object.values(SUMMARY_KEYS).flat(),
  ...REJECTED_COLUMNS,
];
const sortedKeys = (record: object): string[] => Object.keys(record).sort();

/** Every text of a catalog by its path (`overview.groups.division.all`); a plural message as one leaf. */
function leaves(value: unknown, path = ''): Map<string, string | PluralMessage> {
  const found = new Map<string, string | PluralMessage>();
  if (typeof value === 'string' || isPluralMessage(value)) return found.set(path, value);
  for (const [key, inner] of Object.entries(value as object))
    for (const [p, leaf] of leaves(inner, path === '' ? key : `${path}.${key}`)) found.set(p, leaf);
  return found;
}

const placeholders = (text: string): string[] => [...new Set(text.match(/\{\w+\}/g) ?? [])].sort();
const formsOf = (leaf: string | PluralMessage): string[] =>
  typeof leaf === 'string' ? [leaf] : Object.values(leaf.plural);

/** Sheet names Excel refuses: `: \ / ? * [ ]`; and `'`, which the print titles' references would have to double. */
const FORBIDDEN_IN_SHEET_NAME = /[:\\/?*[\]']/;

/**
 * Texts a finished language may share with English, and why: the same word in that language, a
 * code, or a name. Everything else that equals the English text is English left over.
 */
const SAME_AS_ENGLISH: Readonly<Record<Exclude<ReportLanguage, 'en'>, Readonly<Record<string, string>>>> = {
  ru: {
    'descriptions.statistics.auto_finished_rate': 'a formula of CSV names: auto_finished ÷ shifts',
  },
  de: {
    'headers.division_name': 'Division is the German word',
    'overview.groups.division.header': 'Division is the German word',
    'headers.region_name': 'Region is the German word',
    'headers.user_position': 'Position is the German word',
    'overview.groups.region.header': 'Region is the German word',
    'about.text': 'Text is the German word',
    'descriptions.statistics.auto_finished_rate': 'a formula of CSV names: auto_finished ÷ shifts',
  },
  'pt-BR': {
    'descriptions.statistics.auto_finished_rate': 'a formula of CSV names: auto_finished ÷ shifts',
  },
};

describe('the workbook catalogs', () => {
  for (const language of REPORT_LANGUAGES) {
    const catalog = WORKBOOK_CATALOGS[language];

    describe(language, () => {
      it('has a header for every declared column, and none for a column that is not declared', () => {
        expect(sortedKeys(catalog.headers)).toEqual([...new Set(names(ALL_COLUMNS))].sort());
      });

      it('describes every column of every sheet, and nothing else', () => {
        const { descriptions } = catalog;
        expect(sortedKeys(descriptions.shifts)).toEqual(names(SHIFT_COLUMNS));
        expect(sortedKeys(descriptions.rejected)).toEqual(names(REJECTED_COLUMNS));
        expect(sortedKeys(descriptions.statistics)).toEqual(
          names(DIVISION_SUMMARY_COLUMNS, (n) => SUMMARY_STAT_NAMES.has(n)),
        );
        for (const [sheet, columns] of Object.entries(SUMMARY_KEYS))
          expect(sortedKeys(descriptions.summaryKeys[sheet as SummarySheetKey]), sheet).toEqual(
            names(columns, isKey),
          );
      });

      it('explains every quality flag', () => {
        expect(sortedKeys(catalog.about.qualityFlags)).toEqual(sortedKeys(QUALITY_FLAGS));
      });

      it('names its sheets as Excel accepts them: at most 31 characters, no : \\ / ? * [ ] or quote, all different', () => {
        const sheets = Object.values(catalog.sheets);
        // The Shifts sheets go on as "Shifts (2)"… up to a workbook of a billion rows at the smallest limit.
        const longest = [...sheets, `${catalog.sheets.shifts} (9999)`];
        for (const name of longest) {
          expect(name.length, name).toBeLessThanOrEqual(31);
          expect(name.trim(), name).toBe(name);
          expect(name, name).not.toMatch(FORBIDDEN_IN_SHEET_NAME);
          expect(name.length, name).toBeGreaterThan(0);
        }
        // Excel compares sheet names without regard to case.
        expect(new Set(sheets.map((name) => name.toLocaleLowerCase(language))).size).toBe(sheets.length);
      });

      it("gives each plural message exactly the language's CLDR categories", () => {
        const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
        const plurals = [...leaves(catalog)].filter(([, leaf]) => typeof leaf !== 'string');
        expect(plurals.length).toBeGreaterThan(0);
        for (const [path, leaf] of plurals)
          expect(sortedKeys((leaf as PluralMessage).plural), path).toEqual([...categories].sort());
      });

      it('fills the placeholders the English text has, no more and no fewer', () => {
        const english = leaves(en);
        // A date range reads better as the language writes it ({period}) than as two ISO dates.
        const dated = new Set(['overview.title', 'overview.periodValue']);
        for (const [path, leaf] of leaves(catalog)) {
          const expected = placeholders(formsOf(english.get(path) ?? '').join(' '));
          for (const form of formsOf(leaf)) {
            const found = placeholders(form);
            if (dated.has(path))
              expect(
                found.every((p) => ['{from}', '{to}', '{period}'].includes(p)),
                path,
              ).toBe(true);
            // An English singular may say "the lowest division" where the number is plain.
            else if (typeof leaf !== 'string')
              expect(
                found.filter((p) => p !== '{n}'),
                path,
              ).toEqual(expected.filter((p) => p !== '{n}'));
            else expect(found, path).toEqual(expected);
          }
        }
      });
    });
  }

  for (const language of ['ru', 'de', 'pt-BR'] as const) {
    it(`leaves no English in ${language}, but for the texts it shares with English for a reason`, () => {
      const english = leaves(en);
      const same = [...leaves(WORKBOOK_CATALOGS[language])]
        .filter(([path, leaf]) => JSON.stringify(leaf) === JSON.stringify(english.get(path)))
        .map(([path]) => path)
        .sort();
      expect(same).toEqual(Object.keys(SAME_AS_ENGLISH[language]).sort());
    });
  }

  it('takes the English column texts from the column declarations, each header the same on every sheet', () => {
    for (const column of ALL_COLUMNS)
      expect(en.headers[column.name as keyof typeof en.headers]).toBe(column.header);
    expect(en.descriptions.shifts.division_id).toBe(
      SHIFT_COLUMNS.find((c) => c.name === 'division_id')?.description,
    );
  });

  it('counts in Russian with one, few and many: 1 смены, 3 смен, 5 смен, 21 смены per sheet', () => {
    const text = (n: number): string =>
      textFormat('ru').count(WORKBOOK_CATALOGS.ru.about.shiftsSheetsText, n);
    expect(text(1)).toMatch(/^Не более 1 смены на листе/);
    expect(text(3)).toMatch(/^Не более 3 смен на листе/);
    expect(text(5)).toMatch(/^Не более 5 смен на листе/);
    expect(text(21)).toMatch(/^Не более 21 смены на листе/);
    expect(text(1_048_575)).toMatch(/^Не более 1\u00a0048\u00a0575 смен на листе/);
  });
});
