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
import type { XlsxWorkbook } from './exceljs-adapter.js';
import { TableSheet } from './table-sheet.js';
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

export const TOTAL_LABEL = 'All shifts';
export const HIGHLIGHTED_COLUMN = 'start_match_rate';

export const SUMMARY_SHEET_NAMES = ['By division', 'By day', 'By region', 'By shop', 'By user'] as const;

/** The summary sheets with an "All shifts" total row. */
export const TOTALLED_SHEET_NAMES = SUMMARY_SHEET_NAMES.filter((name) => name !== 'By day');

interface SummarySheet<R> {
  readonly name: string;
  readonly columns: readonly Column<R>[];
  readonly rows: SummaryRows<R>;
  /** A row carrying the overall statistics; only its statistic columns are shown. */
  readonly total?: R;
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
      name: 'By division',
      columns: DIVISION_SUMMARY_COLUMNS,
      rows: s.divisions,
      total: { divisionId: 0, divisionExternalId: null, divisionName: '', stats },
    },
    { name: 'By day', columns: DAY_SUMMARY_COLUMNS, rows: s.days },
    {
      name: 'By region',
      columns: REGION_SUMMARY_COLUMNS,
      rows: s.regions,
      total: { regionId: 0, regionName: '', divisionId: 0, divisionName: '', stats },
    },
    {
      name: 'By shop',
      columns: SHOP_SUMMARY_COLUMNS,
      rows: s.shops,
      total: { shopId: 0, shopSap: '', shopLocality: null, regionName: '', divisionName: '', stats },
    },
    {
      name: 'By user',
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
): Promise<void> {
  const { columns } = sheet;
  const styles = columns.map((column) => cellStyleOf(column));
  const table = TableSheet.open(
    workbook,
    sheet.name,
    columns.map((column, i) => ({
      header: column.header,
      // The summaries are already in memory: the widths can fit their content.
      width: columnWidthOf(column, longestText(column, sheet.rows)),
      style: styles[i] ?? {},
    })),
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
  for (const row of sheet.rows) {
    const values = columns.map((column) => xlsxValue(column.kind, column.value(row)));
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
    return i === 0 ? TOTAL_LABEL : null;
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
): Promise<void> {
  const [divisions, days, regions, shops, users] = summarySheets(summaries);
  await writeSummarySheet(workbook, pacer, divisions, threshold);
  await writeSummarySheet(workbook, pacer, days, threshold);
  await writeSummarySheet(workbook, pacer, regions, threshold);
  await writeSummarySheet(workbook, pacer, shops, threshold);
  await writeSummarySheet(workbook, pacer, users, threshold);
}
