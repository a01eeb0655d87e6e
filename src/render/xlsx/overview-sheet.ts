// The Overview sheet, listed first: what a manager reads in ten seconds. Top left the period, the
// business-date rule and the headline figures (shifts, hours, match rates, shares, rejected rows,
// rows changed since the previous export); to their right two native charts — the start-match
// rate per division as bars, lowest first, with the threshold as a line, and the daily start-match
// rate of all divisions and of the five lowest divisions — drawn from the two tables below them on
// this sheet (the charts refer to those cells, so they follow the cells when they change). Its
// figures are known only when every shift has been read, so the sheet is written last and listed
// first (XlsxWorkbook.listFirst). A division's workbook (an export split by division) charts the
// division's regions instead: a division manager compares regions. Its daily chart has the
// division's line alone: the summaries have no region by day.

import type { ExportCounts } from '../../domain/export-counts.js';
import type { Period } from '../../domain/period.js';
import type { DaySummary, ExportSummaries, GroupStats } from '../../domain/summary.js';
import { ALL_DIVISIONS_LABEL } from '../../domain/summary.js';
import type { Manifest } from '../manifest.js';
import { cellAt, columnRange, type ChartPlacement } from './chart-parts.js';
import type { XlsxSheet, XlsxWorkbook } from './exceljs-adapter.js';
import type { WritePacer } from './write-pacer.js';
import { BOLD_FONT, DATE_FORMAT, TEXT_FORMAT, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';

export const OVERVIEW_SHEET_NAME = 'Overview';

/** What change tracking found, as the manifest says it; absent: not known to the writer. */
export type WorkbookChanges = Pick<Manifest, 'previous' | 'changes' | 'changes_unavailable'>;

export interface OverviewFacts {
  readonly period: Period;
  readonly businessDateRule: string;
  readonly counts: ExportCounts;
  readonly changes: WorkbookChanges | undefined;
  readonly matchRateThreshold: number;
  /** What the bars compare: divisions (default), or a division's regions. */
  readonly chartBy?: OverviewGroups;
}

export type OverviewGroups = 'division' | 'region';

/** The words the sheet uses for the groups it compares. */
const GROUP_WORDS = {
  division: { one: 'division', many: 'divisions', header: 'Division', sheet: 'By division' },
  region: { one: 'region', many: 'regions', header: 'Region', sheet: 'By region' },
} as const;

/** The daily chart's line of a division's workbook: every shift of the division. */
export const ALL_REGIONS_LABEL = 'All regions';

/** Divisions drawn in the daily chart beside all divisions: the lowest start-match rates. */
export const DAILY_CHART_DIVISIONS = 5;

const STYLES = {
  title: { font: { bold: true }, numFmt: TEXT_FORMAT },
  label: { numFmt: TEXT_FORMAT, alignment: { vertical: 'top' } },
  text: { numFmt: TEXT_FORMAT, alignment: { wrapText: true, vertical: 'top' } },
  header: { font: BOLD_FONT, numFmt: TEXT_FORMAT, alignment: { wrapText: true, vertical: 'top' } },
  count: { numFmt: '#,##0' },
  hours: { numFmt: '#,##0.0' },
  rate: { numFmt: '0.0%' },
  date: { numFmt: DATE_FORMAT, alignment: { horizontal: 'left' } },
} satisfies Record<string, XlsxStyle>;

/** A, B, C hold the headline and the tables; D.. the daily table's divisions, under the charts. */
const COLUMN_WIDTHS = [34, 40, 18, 18, 18, 18, 18];
/** Characters of column B's wrapped text per line, and the points a line takes. */
const TEXT_LINE_CHARACTERS = 40;
const LINE_POINTS = 15;
/** The charts: columns D to M, the bars rows 1-20, the daily lines rows 22-41 (0-based corners). */
const CHART_COLUMNS = { from: 3, to: 13 };
const BAR_ROWS = { from: 0, to: 20 };
const LINE_ROWS = { from: 21, to: 41 };
/** The charts' tables start below the charts, so no chart covers a cell a reader needs. */
const TABLES_FIRST_ROW = 44;

type Row = {
  readonly values: readonly XlsxValue[];
  readonly styles: readonly (XlsxStyle | undefined)[];
  /** Set on rows of wrapped text, tall enough for its lines. */
  readonly height?: number;
};

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

function startRate(stats: GroupStats): number | null {
  return ratio(stats.startMatched, stats.startChecked);
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** The changed-rows line: the counts, or honestly why there are none. */
export function changesText(changes: WorkbookChanges | undefined): string {
  if (changes === undefined) return 'not known';
  if (changes.changes === undefined) return 'nothing to compare with: the first export of this period';
  if (changes.changes === null)
    return `not counted: ${changes.changes_unavailable?.message ?? 'the reason was not recorded'}`;
  const { changed, added, removed, previous_export_id } = changes.changes;
  return `${changed.toLocaleString('en-US')} changed, ${added.toLocaleString('en-US')} added, ${removed.toLocaleString('en-US')} removed (since export ${previous_export_id})`;
}

function headlineRows(summaries: ExportSummaries, facts: OverviewFacts): Row[] {
  const all = summaries.overall;
  const words = GROUP_WORDS[facts.chartBy ?? 'division'];
  const rated = groupsByRate(summaries, facts.chartBy);
  const below = rated.filter((d) => d.rate < facts.matchRateThreshold).length;
  const figure = (label: string, value: number | null, style: XlsxStyle): Row => ({
    values: [label, value],
    styles: [STYLES.label, style],
  });
  const text = (label: string, value: string): Row => {
    const lines = Math.max(1, Math.ceil(value.length / TEXT_LINE_CHARACTERS));
    return {
      values: [label, value],
      styles: [STYLES.label, STYLES.text],
      ...(lines > 1 ? { height: lines * LINE_POINTS } : {}),
    };
  };
  return [
    { values: [`Shifts ${facts.period.from} to ${facts.period.to}`], styles: [STYLES.title] },
    text('Period', `${facts.period.from} to ${facts.period.to} (business dates, both inclusive)`),
    text('Business date', facts.businessDateRule),
    { values: [], styles: [] },
    { values: ['Headline', 'Value'], styles: [STYLES.header, STYLES.header] },
    figure('Shifts', all.shifts, STYLES.count),
    figure('Hours', all.durationSeconds / 3600, STYLES.hours),
    figure('Start match rate', startRate(all), STYLES.rate),
    figure('Finish match rate', ratio(all.finishMatched, all.finishChecked), STYLES.rate),
    figure('Start and finish match rate', ratio(all.bothMatched, all.bothChecked), STYLES.rate),
    figure('Share without location', ratio(all.noLocation, all.shifts), STYLES.rate),
    figure('Share auto-finished', ratio(all.autoFinished, all.shifts), STYLES.rate),
    figure('Rejected rows', facts.counts.rejected, STYLES.count),
    text('Rows changed since the previous export', changesText(facts.changes)),
    text(
      `${words.header}s below the threshold`,
      `${below} of ${rated.length} below ${percent(facts.matchRateThreshold)} start match (red on ${words.sheet})`,
    ),
    { values: [], styles: [] },
    // With no shifts there is nothing to draw, and no chart parts are written.
    text(
      'Chart data',
      all.shifts > 0 ? `Below the charts, from row ${TABLES_FIRST_ROW}` : 'none: no shifts in this period',
    ),
  ];
}

interface DivisionRate {
  readonly id: number;
  readonly name: string;
  readonly rate: number;
}

/** Divisions (or regions) with checked starts, lowest start-match rate first (then by name). */
function groupsByRate(summaries: ExportSummaries, chartBy: OverviewGroups = 'division'): DivisionRate[] {
  const groups =
    chartBy === 'region'
      ? summaries.regions.map((r) => ({ id: r.regionId, name: r.regionName, stats: r.stats }))
      : summaries.divisions.map((d) => ({ id: d.divisionId, name: d.divisionName, stats: d.stats }));
  return groups
    .flatMap((g) => {
      const rate = startRate(g.stats);
      return rate === null ? [] : [{ id: g.id, name: g.name, rate }];
    })
    .sort((a, b) => a.rate - b.rate || a.name.localeCompare(b.name) || a.id - b.id);
}

/** Everything the sheet holds: its rows top to bottom, and the charts placed over them. */
export function overviewLayout(
  summaries: ExportSummaries,
  facts: OverviewFacts,
): { readonly rows: readonly Row[]; readonly charts: readonly ChartPlacement[] } {
  const sheet = OVERVIEW_SHEET_NAME;
  const rows: Row[] = headlineRows(summaries, facts);
  while (rows.length < TABLES_FIRST_ROW - 1) rows.push({ values: [], styles: [] });
  const charts: ChartPlacement[] = [];

  // The bars: one row per division (or region), lowest first, and the threshold beside each.
  const words = GROUP_WORDS[facts.chartBy ?? 'division'];
  const divisions = groupsByRate(summaries, facts.chartBy);
  rows.push({
    values: [`Start match rate by ${words.one}, lowest first (the bar chart)`],
    styles: [STYLES.title],
  });
  const barHeader = rows.length + 1;
  rows.push({
    values: [words.header, 'Start match rate', 'Threshold'],
    styles: [STYLES.header, STYLES.header, STYLES.header],
  });
  for (const d of divisions) {
    rows.push({
      values: [d.name, d.rate, facts.matchRateThreshold],
      styles: [STYLES.label, STYLES.rate, STYLES.rate],
    });
  }
  if (divisions.length > 0) {
    const first = barHeader + 1;
    const last = barHeader + divisions.length;
    charts.push({
      chart: {
        kind: 'bar',
        title: `Start match rate by ${words.one}, lowest first`,
        categories: columnRange(sheet, 1, first, last),
        series: [{ name: cellAt(sheet, barHeader, 2), values: columnRange(sheet, 2, first, last) }],
        threshold: { name: cellAt(sheet, barHeader, 3), values: columnRange(sheet, 3, first, last) },
        valueFormat: '0%',
        valueRange: { min: 0, max: 1 },
      },
      from: { row: BAR_ROWS.from, column: CHART_COLUMNS.from },
      to: { row: BAR_ROWS.to, column: CHART_COLUMNS.to },
    });
  }

  // The lines: one row per business date; all divisions, then the lowest divisions of the period
  // (a division's workbook: the division alone, as the summaries have no region by day).
  rows.push({ values: [], styles: [] });
  const lowest = facts.chartBy === 'region' ? [] : divisions.slice(0, DAILY_CHART_DIVISIONS);
  const allLabel = facts.chartBy === 'region' ? ALL_REGIONS_LABEL : ALL_DIVISIONS_LABEL;
  const dailyTitle =
    lowest.length === 0
      ? `Daily start match rate: all ${words.many}`
      : `Daily start match rate: all divisions and the ${lowest.length === 1 ? 'lowest division' : `${lowest.length} lowest`}`;
  rows.push({
    values: [`${dailyTitle} (the line chart)`],
    styles: [STYLES.title],
  });
  const lineHeader = rows.length + 1;
  rows.push({
    values: ['Business date', allLabel, ...lowest.map((d) => d.name)],
    styles: [STYLES.header, STYLES.header, ...lowest.map(() => STYLES.header)],
    // Division names wrap in their narrow columns.
    height: 3 * LINE_POINTS,
  });
  const days = dailyRates(summaries.days, lowest);
  for (const day of days) {
    rows.push({
      // Dates as Excel serial days, shown by the date format.
      values: [day.businessDay + 25_569, ...day.rates],
      styles: [STYLES.date, ...day.rates.map(() => STYLES.rate)],
    });
  }
  if (days.length > 0) {
    const first = lineHeader + 1;
    const last = lineHeader + days.length;
    const series = [allLabel, ...lowest].map((_, i) => ({
      name: cellAt(sheet, lineHeader, 2 + i),
      values: columnRange(sheet, 2 + i, first, last),
    }));
    charts.push({
      chart: {
        kind: 'line',
        title: dailyTitle,
        categories: columnRange(sheet, 1, first, last),
        categoryFormat: 'dd mmm',
        series,
        // An automatic scale: the days differ by a few points, which 0-100% would flatten.
        valueFormat: '0%',
      },
      from: { row: LINE_ROWS.from, column: CHART_COLUMNS.from },
      to: { row: LINE_ROWS.to, column: CHART_COLUMNS.to },
    });
  }
  return { rows, charts };
}

/** Per business date, the all-divisions rate, then each division's (null: no checked starts). */
function dailyRates(
  days: readonly DaySummary[],
  divisions: readonly DivisionRate[],
): { readonly businessDay: number; readonly rates: (number | null)[] }[] {
  const byDay = new Map<number, (number | null)[]>();
  for (const day of days) {
    let rates = byDay.get(day.businessDay);
    if (rates === undefined) {
      rates = [null, ...divisions.map(() => null)];
      byDay.set(day.businessDay, rates);
    }
    if (day.divisionId === null) {
      rates[0] = startRate(day.stats);
      continue;
    }
    const index = divisions.findIndex((d) => d.id === day.divisionId);
    if (index >= 0) rates[index + 1] = startRate(day.stats);
  }
  return [...byDay.entries()]
    .sort(([a], [b]) => a - b)
    .map(([businessDay, rates]) => ({ businessDay, rates }));
}

/** Writes the Overview sheet (call last, then XlsxWorkbook.listFirst with the sheet returned). */
export async function writeOverviewSheet(
  workbook: XlsxWorkbook,
  pacer: WritePacer,
  summaries: ExportSummaries,
  facts: OverviewFacts,
): Promise<XlsxSheet> {
  const sheet = workbook.addSheet({
    name: OVERVIEW_SHEET_NAME,
    columnWidths: COLUMN_WIDTHS,
    // One page: the headline and both charts side by side; the chart data runs on below.
    pageSetup: { paperSize: 9, orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  pacer.follow(sheet);
  const { rows, charts } = overviewLayout(summaries, facts);
  sheet.addCharts(charts);
  for (const row of rows) {
    sheet.addRow(row.values, row.styles, row.height);
    const pause = pacer.afterRow();
    if (pause !== undefined) await pause;
  }
  sheet.close();
  return sheet;
}
