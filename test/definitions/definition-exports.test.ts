import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  definitionExports,
  exportScopeOf,
  requireDefinition,
  runDayOf,
} from '../../src/definitions/definition-exports.js';
import type { ExportDefinition, ExportDefinitions } from '../../src/definitions/export-definition.js';
import { nightlyDefinition } from '../../src/definitions/nightly-definition.js';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { ShiftExportError } from '../../src/errors.js';

const weekly: ExportDefinition = {
  ...nightlyDefinition(
    { enabled: true, cron: '0 6 * * 1', tz: 'Europe/Berlin', lookbackDays: 0 },
    { dest: '/srv/exports/weekly', formats: ['xlsx'], reportLang: 'en' },
  ),
  name: 'weekly',
  period: { kind: 'last-week' },
  destIsExportDest: false,
  filter: { divisions: [1, 2], regions: undefined, shops: undefined },
  split: 'division',
};
const nightly = nightlyDefinition(
  { enabled: true, cron: '0 3 * * *', tz: 'UTC', lookbackDays: 2 },
  { dest: '/srv/exports', formats: ['csv'], reportLang: 'en' },
);
const set: ExportDefinitions = {
  source: { kind: 'file', file: 'exports.yaml' },
  definitions: [weekly, nightly],
};
const period = { from: '2026-11-16', to: '2026-11-22' };

describe('definitionExports', () => {
  it("names the definition and its dest for a file's definition", () => {
    expect(definitionExports(weekly, [period])).toEqual([
      { period, formats: ['xlsx'], dest: '/srv/exports/weekly', definition: 'weekly' },
    ]);
  });

  it("gives the legacy nightly definition today's jobs: no dest (the worker's EXPORT_DEST), no name", () => {
    expect(definitionExports(nightly, [period])).toEqual([
      { period, formats: ['csv'], dest: undefined, definition: undefined },
    ]);
  });
});

describe('exportScopeOf', () => {
  it('passes the filter (lists that are set), the split and the language', () => {
    expect(exportScopeOf(weekly)).toEqual({ filter: { divisions: [1, 2] }, split: 'division', lang: 'en' });
    expect(exportScopeOf({ ...nightly, lang: 'de' })).toEqual({ lang: 'de' });
  });

  it("asks for every division manager's language when a split is mailed to them", () => {
    const email = { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'always', lang: 'ru' } as const;
    const mailed = { ...weekly, lang: 'ru' as const, deliver: { email, webhooks: [] } };
    expect(exportScopeOf(mailed)).toMatchObject({
      split: 'division',
      lang: 'ru',
      readers: 'division-managers',
    });
    expect(exportScopeOf({ ...mailed, split: undefined })).not.toHaveProperty('readers');
    const fixed = { ...mailed, deliver: { email: { ...email, to: ['hq@example.com'] }, webhooks: [] } };
    expect(exportScopeOf(fixed)).not.toHaveProperty('readers');
  });
});

describe('runDayOf', () => {
  it('takes --date as the local date of the run', () => {
    expect(formatDay(runDayOf(weekly, '2026-11-23', '--date', 0))).toBe('2026-11-23');
  });

  it("defaults to today in the definition's zone, not in UTC", () => {
    // 23:30 UTC on the 22nd is already the 23rd in Berlin.
    expect(formatDay(runDayOf(weekly, undefined, '--date', Date.parse('2026-11-22T23:30:00Z')))).toBe(
      '2026-11-23',
    );
    expect(formatDay(runDayOf(nightly, undefined, '--date', Date.parse('2026-11-22T23:30:00Z')))).toBe(
      '2026-11-22',
    );
  });

  it('refuses anything but a real date, naming the field', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(parseDay(text) === undefined);
        expect(() => runDayOf(weekly, text, 'date', 0)).toThrow(/^date .* is not a real date as YYYY-MM-DD$/);
      }),
    );
  });
});

describe('requireDefinition', () => {
  it('finds a definition by name', () => {
    expect(requireDefinition(set, 'weekly')).toBe(weekly);
  });

  it('refuses an unknown name on one line with the known ones and the closest', () => {
    const closest = (typed: string, names: readonly string[]) => names.find((n) => n[0] === typed[0]);
    let error: unknown;
    try {
      requireDefinition(set, 'weekyl', closest);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ShiftExportError);
    expect((error as ShiftExportError).code).toBe('REQUEST_INVALID');
    expect((error as ShiftExportError).message).toBe(
      'no export definition "weekyl" in exports.yaml; did you mean "weekly"? (known: weekly, nightly)',
    );
  });
});
