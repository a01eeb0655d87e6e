// The "By division / day / region / shop / user" sheets: one row per group in the order the
// summaries arrive (sorted by name; By day by date, the day's "All divisions" row first), rates as
// percentages, a start-match rate below the threshold filled red, and except on By day an "All
// shifts" total row under a blank row — outside the autofilter, so sorting the table never moves it.
// By day has no total row: its layout (one header row, then the days) is what charts point at.

import type { Column } from '../../domain/column.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../domain/summary-columns.js';
import type {
  ExportSummaries,
  GroupStats,
  ShopSummary,
  SummaryRows,
  UserSummary,
} from '../../domain/summary.js';
import { en } from '../../i18n/workbook/en.js';
import type { SummarySheetKey, WorkbookMessages } from '../../i18n/workbook/workbook-messages.js';
import type { XlsxWorkbook } from './exceljs-adapter.js';
import { TableSheet } from './table-sheet.js';
import { columnHeader } from './workbook-texts.js';
import type { WritePacer } from './write-pacer.js';
import {
  boldStyleOf,
  cellStyleOf,
  columnWidthOf,
  highlightStyleOf,
  xlsxValue,
  type XlsxStyle,
  type XlsxValue,
} from './xlsx-cells.js';

export const TOTAL_LABEL = en.totalRow;
export const HIGHLIGHTED_COLUMN = 'start_match_rate';

/** The summary sheets' catalog keys, in workbook order. */
export const SUMMARY_SHEETS: readonly SummarySheetKey[] = [
  'byDivision',
  'byDay',
  'byRegion',
  'byShop',
  'byUser',
];
/** The summary sheets with an "All shifts" total row (By day gives each day an "All divisions" row instead). */
export const TOTALLED_SHEETS: readonly SummarySheetKey[] = SUMMARY_SHEETS.filter((key) => key !== 'byDay');

/** The summary sheets' names in a language, in workbook order. */
export function summarySheetNames(messages: WorkbookMessages): string[] {
  return SUMMARY_SHEETS.map((key) => messages.sheets[key]);
}

/** The English names, as the sheets of a workbook with no language asked for are called. */
export const SUMMARY_SHEET_NAMES = summarySheetNames(en);
export const TOTALLED_SHEET_NAMES = TOTALLED_SHEETS.map((key) => en.sheets[key]);

interface SummarySheet<R> {
  readonly key: SummarySheetKey;
  readonly columns: readonly Column<R>[];
  readonly rows: SummaryRows<R>;
  /** A row carrying the overall statistics; only its statistic columns are shown. */
  readonly total?: R;
  /**
   * A label of ours among the rows' values (By day's "All divisions"), shown in the reader's
   * language: the column, and the label a row has there (undefined: the row's own value).
   */
  readonly label?: { readonly column: string; readonly of: (row: R) => string | undefined };
}

/** The statistic columns: those every summary table has (the rest are each table's keys). */
export const SUMMARY_STAT_NAMES: ReadonlySet<string> = new Set(
  DIVISION_SUMMARY_COLUMNS.map((c) => c.name).filter((name) =>
    [DAY_SUMMARY_COLUMNS, REGION_SUMMARY_COLUMNS, SHOP_SUMMARY_COLUMNS, USER_SUMMARY_COLUMNS].every(
      (columns) => columns.some((c) => c.name === name),
    ),
  ),
);

function summarySheets(
  s: ExportSummaries,
  messages: WorkbookMessages,
): readonly [
  SummarySheet<ExportSummaries['divisions'][number]>,
  SummarySheet<ExportSummaries['days'][number]>,
  SummarySheet<ExportSummaries['regions'][number]>,
  SummarySheet<ShopSummary>,
  SummarySheet<UserSummary>,
] {
  const stats: GroupStats = s.overall;
  return [
    {
      key: 'byDivision',
      columns: DIVISION_SUMMARY_COLUMNS,
      rows: s.divisions,
      total: { divisionId: 0, divisionExternalId: null, divisionName: '', stats },
    },
    {
      key: 'byDay',
      columns: DAY_SUMMARY_COLUMNS,
      rows: s.days,
      label: {
        column: 'division_name',
        of: (row) => (row.divisionId === null ? messages.overview.groups.division.all : undefined),
      },
    },
    {
      key: 'byRegion',
      columns: REGION_SUMMARY_COLUMNS,
      rows: s.regions,
      total: { regionId: 0, regionName: '', divisionId: 0, divisionName: '', stats },
    },
    {
      key: 'byShop',
      columns: SHOP_SUMMARY_COLUMNS,
      rows: s.shops,
      total: { shopId: 0, shopSap: '', shopLocality: null, regionName: '', divisionName: '', stats },
    },
    {
      key: 'byUser',
      columns: USER_SUMMARY_COLUMNS,
      rows: s.users,
      total: { userId: 0, userLogin: '', userDisplayName: '', stats },
    },
  ];
}

function longestText<R>(column: Column<R>, rows: Iterable<R>): number {
  if (column.kind !== 'text') return 0;
  let longest = 0;
  for (const row of rows) {
    const value = column.value(row);
    if (typeof value === 'string' && value.length > longest) longest = value.length;
  }
  return longest;
}

async function writeSummarySheet<R>(
  workbook: XlsxWorkbook,
  pacer: WritePacer,
  sheet: SummarySheet<R>,
  threshold: number,
  messages: WorkbookMessages,
): Promise<void> {
  const { columns } = sheet;
  const styles = columns.map((column) => cellStyleOf(column));
  const table = TableSheet.open(
    workbook,
    messages.sheets[sheet.key],
    columns.map((column, i) => {
      const header = columnHeader(messages, column);
      // The summaries are already in memory: the widths can fit their content.
      return {
        header,
        width: columnWidthOf({ ...column, header }, longestText(column, sheet.rows)),
        style: styles[i] ?? {},
      };
    }),
    // A summary is read across: its keys and every statistic side by side on one page width, pages
    // only going down (the widest, By shop, in small print: zoom the PDF).
    { pagesWide: 1 },
  );
  pacer.follow(table.sheet);

  const highlighted = columns.findIndex((column) => column.name === HIGHLIGHTED_COLUMN);
  // Styles are shared objects (see xlsx-cells.ts): build the highlighted variants once.
  const withHighlight = (base: XlsxStyle[]): XlsxStyle[] =>
    base.map((style, i) => (i === highlighted ? highlightStyleOf(style) : style));
  const rowStyles = (
    values: readonly XlsxValue[],
    plain: readonly XlsxStyle[],
    marked: readonly XlsxStyle[],
  ): readonly XlsxStyle[] => {
    const rate = values[highlighted];
    return typeof rate === 'number' && rate < threshold ? marked : plain;
  };

  const highlightedStyles = withHighlight(styles);
  const labelled = sheet.label === undefined ? -1 : columns.findIndex((c) => c.name === sheet.label?.column);
  for (const row of sheet.rows) {
    const values = columns.map((column) => xlsxValue(column.kind, column.value(row)));
    const label = labelled < 0 ? undefined : sheet.label?.of(row);
    if (label !== undefined) values[labelled] = label;
    table.addRow(values, rowStyles(values, styles, highlightedStyles));
    const pause = pacer.afterRow();
    if (pause !== undefined) await pause;
  }
  table.endFilteredRange();
  const total = sheet.total;
  if (total === undefined) {
    table.close();
    return;
  }

  const totalValues = columns.map((column, i): XlsxValue => {
    if (SUMMARY_STAT_NAMES.has(column.name)) return xlsxValue(column.kind, column.value(total));
    return i === 0 ? messages.totalRow : null;
  });
  // The label sits in the first column, whatever that column's kind: a plain bold text style.
  const boldStyles = styles.map((style, i) => boldStyleOf(i === 0 ? {} : style));
  table.addBlankRow();
  table.addRow(totalValues, rowStyles(totalValues, boldStyles, withHighlight(boldStyles)));
  table.close();
}

/** Writes the summary sheets, in workbook order. */
export async function writeSummarySheets(
  workbook: XlsxWorkbook,
  pacer: WritePacer,
  summaries: ExportSummaries,
  threshold: number,
  messages: WorkbookMessages = en,
): Promise<void> {
  const [divisions, days, regions, shops, users] = summarySheets(summaries, messages);
  await writeSummarySheet(workbook, pacer, divisions, threshold, messages);
  await writeSummarySheet(workbook, pacer, days, threshold, messages);
  await writeSummarySheet(workbook, pacer, regions, threshold, messages);
  await writeSummarySheet(workbook, pacer, shops, threshold, messages);
  await writeSummarySheet(workbook, pacer, users, threshold, messages);
}
