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
//
// Beside each headline rate and each group's start match rate, the change against the definition's
// previous period, in percentage points (overview-comparison.ts), and a line naming that period:
// the same figures and changes the delivery e-mail shows, from the same manifests. A change is a
// number cell (points: 1.2 for +1.2 pp), rounded as the manifest's rates are, so it equals the
// difference of the two manifests' rates; its format code puts the catalog's unit after it.

import type { ExportCounts } from '../../domain/export-counts.js';
import type { Period } from '../../domain/period.js';
import { roundedRatio } from '../../domain/decimal.js';
import type { DaySummary, ExportSummaries, GroupStats } from '../../domain/summary.js';
import type { ReportLanguage } from '../../i18n/report-language.js';
import { fill, textFormat, type TextFormat } from '../../i18n/text-format.js';
import { en } from '../../i18n/workbook/en.js';
import { workbookMessages } from '../../i18n/workbook/workbook-catalog.js';
import type { WorkbookMessages } from '../../i18n/workbook/workbook-messages.js';
import { manifestStatistics, type Manifest, type ManifestStatistics } from '../manifest.js';
import { cellAt, columnRange, type ChartPlacement } from './chart-parts.js';
import type { XlsxSheet, XlsxWorkbook } from './exceljs-adapter.js';
import type { OverviewComparison } from './overview-comparison.js';
import type { WritePacer } from './write-pacer.js';
import { BOLD_FONT, DATE_FORMAT, TEXT_FORMAT, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';

export const OVERVIEW_SHEET_NAME = en.sheets.overview;

/** What change tracking found, as the manifest says it; absent: not known to the writer. */
export type WorkbookChanges = Pick<Manifest, 'previous' | 'changes' | 'changes_unavailable'>;

export interface OverviewFacts {
  readonly period: Period;
  readonly businessDateRule: string;
  readonly counts: ExportCounts;
  readonly changes: WorkbookChanges | undefined;
  readonly matchRateThreshold: number;
  /**
   * The previous period the rates are compared with; absent: not known to the writer, and the
   * Overview shows no comparison (neither line nor column).
   */
  readonly comparison?: OverviewComparison;
  /** What the bars compare: divisions (default), or a division's regions. */
  readonly chartBy?: OverviewGroups;
  /** The reader's language; default en. */
  readonly language?: ReportLanguage;
}

export type OverviewGroups = 'division' | 'region';

/** The summary sheet where the groups the sheet compares are filled red. */
const GROUP_SHEETS = { division: 'byDivision', region: 'byRegion' } as const;

/** The daily chart's line of a division's workbook: every shift of the division. */
export const ALL_REGIONS_LABEL = en.overview.groups.region.all;

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

/** The decimals of the manifest's rates: a change is the difference of two rates rounded so. */
const RATE_PLACES = 4;

/**
 * A change in percentage points, signed, one decimal, the unit after it; the number part is
 * locale-neutral (the viewer's spreadsheet shows its own decimal separator).
 */
export function pointsFormat(unit: string): string {
  const shown = `" ${unit}"`;
  return `+0.0${shown};-0.0${shown};0.0${shown}`;
}

/** The change from `before` to `now` (shares rounded as the manifest rounds them) in points; null: not comparable. */
function pointsBetween(now: number | null | undefined, before: number | null | undefined): number | null {
  if (now === null || now === undefined || before === null || before === undefined) return null;
  // Rates of 4 decimals differ by whole hundredths of a point: rounding drops the float's noise.
  return Math.round((now - before) * 10_000) / 100;
}

/** A, B, C hold the headline and the tables; D.. the daily table's divisions, under the charts. */
const COLUMN_WIDTHS = [34, 40, 18, 18, 18, 18, 18];

/**
 * The widths for a language. English keeps the widths it was laid out with (its longest label fits
 * column A in Excel's and LibreOffice's font); a translated label may be longer or of wider letters
 * (LibreOffice cut "Доля совпадений при начале и окончании" at 34), so column A takes the
 * character count of the headline's longest label beside a value.
 */
function columnWidths(language: ReportLanguage, rows: readonly Row[]): number[] {
  if (language === 'en') return COLUMN_WIDTHS;
  // The headline's labels only: the tables below hold division names, data of any length.
  const labels = rows.slice(0, TABLES_FIRST_ROW - 1).flatMap((row) => {
    const [label] = row.values;
    return typeof label === 'string' && row.values.length > 1 ? [label.length] : [];
  });
  const [first = 34, ...rest] = COLUMN_WIDTHS;
  return [Math.max(first, ...labels.map((length) => length + 2)), ...rest];
}
/** Characters of column B's wrapped text per line, and the points a line takes. */
const TEXT_LINE_CHARACTERS = 40;
const LINE_POINTS = 15;
/** Characters of a bold header per line in a column 18 wide (the change's, C and D). */
const HEADER_LINE_CHARACTERS = 16;

/**
 * The height of the change's header row: the lines its words wrap into in the narrow column, at
 * least two. "Изменение к предыдущему периоду" takes three, and a row of two cut the third off.
 */
function changeHeaderHeight(header: string): number {
  let lines = 1;
  let used = 0;
  for (const word of header.split(' ')) {
    if (used > 0 && used + 1 + word.length > HEADER_LINE_CHARACTERS) {
      lines++;
      used = 0;
    }
    used += (used > 0 ? 1 : 0) + word.length;
  }
  return Math.max(2, lines) * LINE_POINTS;
}
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

/**
 * The changed-rows line: the counts, or honestly why there are none. The reason a count could not
 * be made is the manifest's message, shown as recorded (it is the same text the manifest holds).
 */
export function changesText(changes: WorkbookChanges | undefined, language: ReportLanguage = 'en'): string {
  const m = workbookMessages(language).overview;
  if (changes === undefined) return m.changesNotKnown;
  if (changes.changes === undefined) return m.changesFirstExport;
  if (changes.changes === null)
    return fill(m.changesNotCounted, {
      reason: changes.changes_unavailable?.message ?? m.changesReasonNotRecorded,
    });
  const { changed, added, removed, previous_export_id } = changes.changes;
  const format = textFormat(language);
  return fill(m.changesCounted, {
    changed: format.integer(changed),
    added: format.integer(added),
    removed: format.integer(removed),
    exportId: previous_export_id,
  });
}

/** The language, its texts and its way with numbers and dates. */
interface Voice {
  readonly language: ReportLanguage;
  readonly messages: WorkbookMessages;
  readonly format: TextFormat;
}

/** The line naming what the rates are compared with. */
function comparisonText(comparison: OverviewComparison, voice: Voice): string {
  const m = voice.messages.overview;
  if (comparison.kind === 'first') return m.comparedWithNothing;
  const period = voice.format.period(comparison.period.from, comparison.period.to);
  if (comparison.kind === 'no_figures') return fill(m.comparedWithNoFigures, { period });
  return fill(m.comparedWithValue, { period, unit: m.pointsUnit });
}

/** The headline rates' changes, by the manifest's statistic names; undefined: no figures to compare with. */
function headlineChanges(
  summaries: ExportSummaries,
  comparison: OverviewComparison | undefined,
): ((name: RateName) => number | null) | undefined {
  if (comparison?.kind !== 'against') return undefined;
  const now = withNoLocationShare(manifestStatistics(summaries.overall));
  const before = withNoLocationShare(comparison.statistics);
  return (name) => pointsBetween(now[name], before[name]);
}

/** The rates the headline shows, as the manifest names them (no_location_share is derived). */
type RateName =
  'start_match_rate' | 'finish_match_rate' | 'both_match_rate' | 'no_location_share' | 'auto_finished_rate';

/**
 * The manifest holds the rows without a location as a count: their share is derived from the
 * counts on both sides, rounded as the rates are.
 */
function withNoLocationShare(statistics: ManifestStatistics): Readonly<Record<string, number | null>> {
  const noLocation = statistics['no_location'];
  const shifts = statistics['shifts'];
  const share =
    typeof noLocation === 'number' && typeof shifts === 'number'
      ? roundedRatio(noLocation, shifts, RATE_PLACES)
      : null;
  return { ...statistics, no_location_share: share };
}

function voiceOf(facts: OverviewFacts): Voice {
  const language = facts.language ?? 'en';
  return { language, messages: workbookMessages(language), format: textFormat(language) };
}

function headlineRows(summaries: ExportSummaries, facts: OverviewFacts, voice: Voice): Row[] {
  const all = summaries.overall;
  const m = voice.messages.overview;
  const group = facts.chartBy ?? 'division';
  const words = m.groups[group];
  const rated = groupsByRate(summaries, facts.chartBy);
  const below = rated.filter((d) => d.rate < facts.matchRateThreshold).length;
  const changes = headlineChanges(summaries, facts.comparison);
  const points: XlsxStyle = { numFmt: pointsFormat(m.pointsUnit) };
  const figure = (label: string, value: number | null, style: XlsxStyle): Row => ({
    values: [label, value],
    styles: [STYLES.label, style],
  });
  // A rate with its change beside it, when there are figures to compare with.
  const rate = (label: string, value: number | null, name: RateName): Row =>
    changes === undefined
      ? figure(label, value, STYLES.rate)
      : { values: [label, value, changes(name)], styles: [STYLES.label, STYLES.rate, points] };
  const text = (label: string, value: string): Row => {
    const lines = Math.max(1, Math.ceil(value.length / TEXT_LINE_CHARACTERS));
    return {
      values: [label, value],
      styles: [STYLES.label, STYLES.text],
      ...(lines > 1 ? { height: lines * LINE_POINTS } : {}),
    };
  };
  const { from, to } = facts.period;
  const dates = { from, to, period: voice.format.period(from, to) };
  return [
    { values: [fill(m.title, dates)], styles: [STYLES.title] },
    text(m.period, fill(m.periodValue, dates)),
    text(m.businessDate, facts.businessDateRule),
    ...(facts.comparison === undefined
      ? []
      : [text(m.comparedWith, comparisonText(facts.comparison, voice))]),
    { values: [], styles: [] },
    changes === undefined
      ? { values: [m.headline, m.value], styles: [STYLES.header, STYLES.header] }
      : {
          values: [m.headline, m.value, m.change],
          styles: [STYLES.header, STYLES.header, STYLES.header],
          // The change header wraps in its narrow column.
          height: changeHeaderHeight(m.change),
        },
    figure(m.shifts, all.shifts, STYLES.count),
    figure(m.hours, all.durationSeconds / 3600, STYLES.hours),
    rate(m.startMatchRate, startRate(all), 'start_match_rate'),
    rate(m.finishMatchRate, ratio(all.finishMatched, all.finishChecked), 'finish_match_rate'),
    rate(m.bothMatchRate, ratio(all.bothMatched, all.bothChecked), 'both_match_rate'),
    rate(m.shareWithoutLocation, ratio(all.noLocation, all.shifts), 'no_location_share'),
    rate(m.shareAutoFinished, ratio(all.autoFinished, all.shifts), 'auto_finished_rate'),
    figure(m.rejectedRows, facts.counts.rejected, STYLES.count),
    text(m.rowsChanged, changesText(facts.changes, voice.language)),
    text(
      words.belowThreshold,
      fill(m.belowThresholdValue, {
        below: voice.format.integer(below),
        total: voice.format.integer(rated.length),
        threshold: voice.format.rate(facts.matchRateThreshold),
        sheet: voice.messages.sheets[GROUP_SHEETS[group]],
      }),
    ),
    { values: [], styles: [] },
    // With no shifts there is nothing to draw, and no chart parts are written.
    text(m.chartData, all.shifts > 0 ? fill(m.chartDataBelow, { row: TABLES_FIRST_ROW }) : m.chartDataNone),
  ];
}

interface DivisionRate {
  readonly id: number;
  readonly name: string;
  readonly rate: number;
  /** The rate rounded as the manifest holds it: what a change is measured from. */
  readonly rounded: number | null;
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
      const rounded = roundedRatio(g.stats.startMatched, g.stats.startChecked, RATE_PLACES);
      return rate === null ? [] : [{ id: g.id, name: g.name, rate, rounded }];
    })
    .sort((a, b) => a.rate - b.rate || a.name.localeCompare(b.name) || a.id - b.id);
}

/** Everything the sheet holds: its rows top to bottom, and the charts placed over them. */
export function overviewLayout(
  summaries: ExportSummaries,
  facts: OverviewFacts,
): { readonly rows: readonly Row[]; readonly charts: readonly ChartPlacement[] } {
  const voice = voiceOf(facts);
  const m = voice.messages.overview;
  // Every chart reference names this sheet, so it follows the sheet's name in the reader's language.
  const sheet = voice.messages.sheets.overview;
  // en-US as the charts were always marked; another language by its own tag.
  const titleLanguage = voice.language === 'en' ? 'en-US' : voice.language;
  const rows: Row[] = headlineRows(summaries, facts, voice);
  while (rows.length < TABLES_FIRST_ROW - 1) rows.push({ values: [], styles: [] });
  const charts: ChartPlacement[] = [];

  // The bars: one row per division (or region), lowest first, and the threshold beside each.
  const words = m.groups[facts.chartBy ?? 'division'];
  const divisions = groupsByRate(summaries, facts.chartBy);
  rows.push({
    values: [fill(m.barTable, { title: words.barTitle })],
    styles: [STYLES.title],
  });
  const barHeader = rows.length + 1;
  // Each group's change in column D, beside the chart's columns: the charts read A to C alone.
  const before = facts.comparison?.kind === 'against' ? facts.comparison.groupStartRates : undefined;
  const points: XlsxStyle = { numFmt: pointsFormat(m.pointsUnit) };
  rows.push({
    values: [words.header, m.startMatchRate, m.threshold, ...(before === undefined ? [] : [m.change])],
    styles: [STYLES.header, STYLES.header, STYLES.header, ...(before === undefined ? [] : [STYLES.header])],
    // The change header wraps in its narrow column.
    ...(before === undefined ? {} : { height: changeHeaderHeight(m.change) }),
  });
  for (const d of divisions) {
    rows.push(
      before === undefined
        ? {
            values: [d.name, d.rate, facts.matchRateThreshold],
            styles: [STYLES.label, STYLES.rate, STYLES.rate],
          }
        : {
            values: [d.name, d.rate, facts.matchRateThreshold, pointsBetween(d.rounded, before.get(d.id))],
            styles: [STYLES.label, STYLES.rate, STYLES.rate, points],
          },
    );
  }
  if (divisions.length > 0) {
    const first = barHeader + 1;
    const last = barHeader + divisions.length;
    charts.push({
      chart: {
        kind: 'bar',
        title: words.barTitle,
        titleLanguage,
        categories: columnRange(sheet, 1, first, last),
        series: [{ name: cellAt(sheet, barHeader, 2), values: columnRange(sheet, 2, first, last) }],
        threshold: { name: cellAt(sheet, barHeader, 3), values: columnRange(sheet, 3, first, last) },
        valueFormat: '0%',
        valueRange: { min: 0, max: 1 },
        axisTitles: { category: words.header, value: m.startMatchRate },
      },
      from: { row: BAR_ROWS.from, column: CHART_COLUMNS.from },
      to: { row: BAR_ROWS.to, column: CHART_COLUMNS.to },
    });
  }

  // The lines: one row per business date; all divisions, then the lowest divisions of the period
  // (a division's workbook: the division alone, as the summaries have no region by day).
  rows.push({ values: [], styles: [] });
  const lowest = facts.chartBy === 'region' ? [] : divisions.slice(0, DAILY_CHART_DIVISIONS);
  const allLabel = words.all;
  const dailyTitle =
    lowest.length === 0 ? words.dailyTitle : voice.format.count(m.dailyLowestTitle, lowest.length);
  rows.push({
    values: [fill(m.lineTable, { title: dailyTitle })],
    styles: [STYLES.title],
  });
  const lineHeader = rows.length + 1;
  rows.push({
    values: [m.businessDate, allLabel, ...lowest.map((d) => d.name)],
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
        titleLanguage,
        categories: columnRange(sheet, 1, first, last),
        dateCategories: true,
        axisTitles: { category: m.businessDate, value: m.startMatchRate },
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
  const language = facts.language ?? 'en';
  const { rows, charts } = overviewLayout(summaries, facts);
  const sheet = workbook.addSheet({
    name: workbookMessages(language).sheets.overview,
    columnWidths: columnWidths(language, rows),
    // One page: the headline and both charts side by side; the chart data runs on below.
    pageSetup: { paperSize: 9, orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  pacer.follow(sheet);
  sheet.addCharts(charts);
  for (const row of rows) {
    sheet.addRow(row.values, row.styles, row.height);
    const pause = pacer.afterRow();
    if (pause !== undefined) await pause;
  }
  sheet.close();
  return sheet;
}
