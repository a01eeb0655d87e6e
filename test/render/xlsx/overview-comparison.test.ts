// The Overview's comparison with the definition's previous period: beside each headline rate and
// each group's start match rate, the change in percentage points as a number cell with a
// percentage-point format in the reader's language, and a line naming the previous period; the
// first period says there is nothing to compare with yet. Read back from the written workbook.

import type ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { ReportLanguage } from '../../../src/i18n/report-language.js';
import { REPORT_LANGUAGES } from '../../../src/i18n/report-language.js';
import { textFormat } from '../../../src/i18n/text-format.js';
import { workbookMessages } from '../../../src/i18n/workbook/workbook-catalog.js';
import { manifestStatistics, type Manifest } from '../../../src/render/manifest.js';
import { overviewComparison, type OverviewComparison } from '../../../src/render/xlsx/overview-comparison.js';
import { OVERVIEW_SHEET_NAME, pointsFormat } from '../../../src/render/xlsx/overview-sheet.js';
import { about, stats } from './shift-fixtures.js';
import { readWorkbook, renderWorkbook, rowValues, sheet } from './workbook-io.js';

const PREVIOUS_PERIOD = { from: '2024-04-24', to: '2024-04-30' };

/**
 * The period before the fixtures' (which are: 22 shifts, starts 16 of 20, finishes 5 of 10, both
 * 5 of 10, none without a location, 1 auto-finished): starts 15 of 20 (0.75), finishes 6 of 10,
 * both 4 of 10, 1 of 20 without a location, 2 of 20 auto-finished.
 */
const PREVIOUS_STATISTICS = manifestStatistics(
  stats({
    shifts: 20,
    startChecked: 20,
    startMatched: 15,
    finishMatched: 6,
    bothMatched: 4,
    noLocation: 1,
    autoFinished: 2,
  }),
);

/** North (id 1) at 0.85 then; South (id 2) had no rate then. */
const AGAINST: OverviewComparison = {
  kind: 'against',
  period: PREVIOUS_PERIOD,
  statistics: PREVIOUS_STATISTICS,
  groupStartRates: new Map([
    [1, 0.85],
    [2, null],
  ]),
};

async function overviewOf(comparison: OverviewComparison | undefined, language?: ReportLanguage) {
  const bytes = await renderWorkbook({
    about: about(comparison === undefined ? {} : { comparison }),
    ...(language === undefined ? {} : { options: { language } }),
  });
  const name = language === undefined ? OVERVIEW_SHEET_NAME : workbookMessages(language).sheets.overview;
  return sheet(await readWorkbook(bytes), name);
}

/** The 1-based row whose column A holds `label` (the first). */
function rowOf(overview: ExcelJS.Worksheet, label: string): number {
  for (let row = 1; row <= overview.rowCount; row++) if (rowValues(overview, row)[0] === label) return row;
  throw new Error(`no "${label}" row`);
}

function valuesOf(overview: ExcelJS.Worksheet, label: string): unknown[] {
  return rowValues(overview, rowOf(overview, label));
}

describe('the Overview compared with the previous period', () => {
  it("shows each headline rate's change in percentage points beside it, as a number with a pp format", async () => {
    const overview = await overviewOf(AGAINST);
    expect(valuesOf(overview, 'Headline')).toEqual(['Headline', 'Value', 'Change vs previous period']);
    // 0.8 - 0.75, 0.5 - 0.6, 0.5 - 0.4, 0 - 0.05, 0.0455 - 0.1 (rates rounded to 4 places, as the manifest's).
    expect(valuesOf(overview, 'Start match rate')).toEqual(['Start match rate', 0.8, 5]);
    expect(valuesOf(overview, 'Finish match rate')).toEqual(['Finish match rate', 0.5, -10]);
    expect(valuesOf(overview, 'Start and finish match rate')).toEqual([
      'Start and finish match rate',
      0.5,
      10,
    ]);
    expect(valuesOf(overview, 'Share without location')).toEqual(['Share without location', 0, -5]);
    const auto = valuesOf(overview, 'Share auto-finished');
    expect(auto[2]).toBe(-5.45);
    // Counts have no change column.
    expect(valuesOf(overview, 'Shifts')).toEqual(['Shifts', 22]);
    const cell = overview.getCell(rowOf(overview, 'Start match rate'), 3);
    expect(cell.numFmt).toBe('+0.0" pp";-0.0" pp";0.0" pp"');
  });

  it('names the previous period the changes are against, as the reader writes dates', async () => {
    const overview = await overviewOf(AGAINST);
    const period = textFormat('en').period(PREVIOUS_PERIOD.from, PREVIOUS_PERIOD.to);
    expect(valuesOf(overview, 'Compared with')).toEqual([
      'Compared with',
      `the previous period, ${period}; changes in percentage points (pp)`,
    ]);
  });

  it("gives each division its start match rate's change, empty where the previous period had no rate", async () => {
    const overview = await overviewOf(AGAINST);
    const header = rowOf(overview, 'Division');
    expect(rowValues(overview, header)).toEqual([
      'Division',
      'Start match rate',
      'Threshold',
      'Change vs previous period',
    ]);
    // South (0.7) had no rate then; North 0.9 against 0.85.
    expect(rowValues(overview, header + 1).slice(0, 3)).toEqual(['South', 0.7, 0.8]);
    expect(rowValues(overview, header + 1)[3] ?? null).toBeNull();
    expect(rowValues(overview, header + 2)).toEqual(['North', 0.9, 0.8, 5]);
    expect(overview.getCell(header + 2, 4).numFmt).toBe('+0.0" pp";-0.0" pp";0.0" pp"');
  });

  it('says in Russian what it compares with, and the unit of its format is Russian', async () => {
    const ru = workbookMessages('ru').overview;
    const overview = await overviewOf(AGAINST, 'ru');
    const period = textFormat('ru').period(PREVIOUS_PERIOD.from, PREVIOUS_PERIOD.to);
    expect(valuesOf(overview, ru.comparedWith)[1]).toBe(
      `с предыдущим периодом (${period}); изменения в процентных пунктах (п. п.)`,
    );
    expect(valuesOf(overview, ru.headline)[2]).toBe(ru.change);
    const cell = overview.getCell(rowOf(overview, ru.startMatchRate), 3);
    expect(cell.value).toBe(5);
    expect(cell.numFmt).toBe('+0.0" п. п.";-0.0" п. п.";0.0" п. п."');
  });

  it('makes the change header rows tall enough for the lines the header wraps into in its narrow column', async () => {
    // Two lines of 15 points in English and German; "Изменение к / предыдущему / периоду" and
    // "Variação em / relação ao / período anterior" take three.
    const lines: Record<ReportLanguage, number> = { en: 2, de: 2, ru: 3, 'pt-BR': 3 };
    for (const language of REPORT_LANGUAGES) {
      const m = workbookMessages(language).overview;
      const overview = await overviewOf(AGAINST, language);
      const headline = rowOf(overview, m.headline);
      expect(rowValues(overview, headline)[2]).toBe(m.change);
      const bars = rowOf(overview, m.groups.division.header);
      expect(rowValues(overview, bars)[3]).toBe(m.change);
      for (const row of [headline, bars])
        expect(overview.getRow(row).height, language).toBe(lines[language] * 15);
    }
  });

  it('says on the first period that there is nothing to compare with yet, and shows no change column', async () => {
    const overview = await overviewOf({ kind: 'first' });
    expect(valuesOf(overview, 'Compared with')).toEqual([
      'Compared with',
      'nothing yet: this is the first period of this report',
    ]);
    expect(valuesOf(overview, 'Headline')).toEqual(['Headline', 'Value']);
    expect(valuesOf(overview, 'Start match rate')).toEqual(['Start match rate', 0.8]);
    expect(rowValues(overview, rowOf(overview, 'Division'))).toEqual([
      'Division',
      'Start match rate',
      'Threshold',
    ]);
  });

  it('says when the previous period has no figures for this workbook', async () => {
    const overview = await overviewOf({ kind: 'no_figures', period: PREVIOUS_PERIOD });
    const period = textFormat('en').period(PREVIOUS_PERIOD.from, PREVIOUS_PERIOD.to);
    expect(valuesOf(overview, 'Compared with')[1]).toBe(
      `the previous period, ${period}, has no figures to compare with`,
    );
    expect(valuesOf(overview, 'Start match rate')).toEqual(['Start match rate', 0.8]);
  });

  it('shows no comparison when the writer is not told of one', async () => {
    const overview = await overviewOf(undefined);
    expect(() => rowOf(overview, 'Compared with')).toThrow();
    expect(valuesOf(overview, 'Headline')).toEqual(['Headline', 'Value']);
  });
});

describe('pointsFormat', () => {
  it("takes each catalog's unit, which fits inside the format code's quotes", () => {
    for (const language of REPORT_LANGUAGES) {
      const unit = workbookMessages(language).overview.pointsUnit;
      expect(unit, language).not.toMatch(/["\\]/);
      expect(unit.trim(), language).not.toBe('');
      expect(pointsFormat(unit)).toBe(`+0.0" ${unit}";-0.0" ${unit}";0.0" ${unit}"`);
    }
  });
});

describe('overviewComparison', () => {
  const previous: Manifest = {
    export_id: 'exp-before',
    period: PREVIOUS_PERIOD,
    generated_at: '2024-05-01T04:00:00.000Z',
    tool: { name: 'shift-export', version: '0.1.0' },
    source: { base_url: 'https://wfm.example.com' },
    counts: { fetched: 20, exported: 20, rejected: 0, duplicates: 0, outside_window: 0, flagged: 0 },
    statistics: PREVIOUS_STATISTICS,
    files: [],
    division_rates: [
      { division_id: 1, division_name: 'North', shifts: 10, start_match_rate: 0.85, finish_match_rate: 0.5 },
    ],
    divisions: [
      {
        division_id: 1,
        division_name: 'North',
        shifts: 10,
        changed: true,
        statistics: manifestStatistics(stats({ startMatched: 6 })),
        region_rates: [
          {
            region_id: 10,
            region_name: 'Region A',
            shifts: 10,
            start_match_rate: 0.6,
            finish_match_rate: 0.5,
          },
        ],
      },
      { division_id: 2, division_name: 'South', shifts: 3, changed: true },
    ],
  };

  it('compares a whole export with the statistics and division rates, a division with its own entry', () => {
    expect(overviewComparison({ period: PREVIOUS_PERIOD, manifest: previous }, undefined)).toEqual({
      kind: 'against',
      period: PREVIOUS_PERIOD,
      statistics: PREVIOUS_STATISTICS,
      groupStartRates: new Map([[1, 0.85]]),
    });
    const north = overviewComparison({ period: PREVIOUS_PERIOD, manifest: previous }, 1);
    expect(north.kind === 'against' && north.statistics['start_match_rate']).toBe(0.6);
    expect(north.kind === 'against' && [...north.groupStartRates]).toEqual([[10, 0.6]]);
  });

  it('has no figures for a division listed without them, or not listed; and nothing before the first period', () => {
    const then = { period: PREVIOUS_PERIOD, manifest: previous };
    expect(overviewComparison(then, 2)).toEqual({ kind: 'no_figures', period: PREVIOUS_PERIOD });
    expect(overviewComparison(then, 9)).toEqual({ kind: 'no_figures', period: PREVIOUS_PERIOD });
    expect(overviewComparison(undefined, 1)).toEqual({ kind: 'first' });
    expect(overviewComparison(undefined, undefined)).toEqual({ kind: 'first' });
  });
});
