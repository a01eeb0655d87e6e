// The "By division / region / shop / user" sheets: one row per group in the order the summaries
// arrive (sorted by name), rates as percentages, a start-match rate below the threshold filled red,
// and an "All shifts" total row under a blank row — outside the autofilter, so sorting the table
// never moves it.

import type { Style } from 'exceljs';
import type { Column } from '../../domain/column.js';
import {
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../domain/summary-columns.js';
import type { ExportSummaries, GroupStats } from '../../domain/summary.js';
import type { StreamingWorkbook } from './create-workbook-writer.js';
import { TableSheet } from './table-sheet.js';
import type { WritePacer } from './write-pacer.js';
import {
  boldStyleOf,
  cellStyleOf,
  columnWidthOf,
  highlightStyleOf,
  xlsxValue,
  type XlsxValue,
} from './xlsx-cells.js';

export const TOTAL_LABEL = 'All shifts';
export const HIGHLIGHTED_COLUMN = 'start_match_rate';

export const SUMMARY_SHEET_NAMES = ['By division', 'By region', 'By shop', 'By user'] as const;

interface SummarySheet<R> {
  readonly name: string;
  readonly columns: readonly Column<R>[];
  readonly rows: readonly R[];
  /** A row carrying the overall statistics; only its statistic columns are shown. */
  readonly total: R;
}

/** The statistic columns: those every summary table has (the rest are each table's keys). */
export const SUMMARY_STAT_NAMES: ReadonlySet<string> = new Set(
  DIVISION_SUMMARY_COLUMNS.map((c) => c.name).filter((name) =>
    [REGION_SUMMARY_COLUMNS, SHOP_SUMMARY_COLUMNS, USER_SUMMARY_COLUMNS].every((columns) =>
      columns.some((c) => c.name === name),
    ),
  ),
);

function summarySheets(
  s: ExportSummaries,
): readonly [
  SummarySheet<ExportSummaries['divisions'][number]>,
  SummarySheet<ExportSummaries['regions'][number]>,
  SummarySheet<ExportSummaries['shops'][number]>,
  SummarySheet<ExportSummaries['users'][number]>,
] {
  const stats: GroupStats = s.overall;
  return [
    {
      name: 'By division',
      columns: DIVISION_SUMMARY_COLUMNS,
      rows: s.divisions,
      total: { divisionId: 0, divisionExternalId: null, divisionName: '', stats },
    },
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

function longestText<R>(column: Column<R>, rows: readonly R[]): number {
  if (column.kind !== 'text') return 0;
  let longest = 0;
  for (const row of rows) {
    const value = column.value(row);
    if (typeof value === 'string' && value.length > longest) longest = value.length;
  }
  return longest;
}

async function writeSummarySheet<R>(
  workbook: StreamingWorkbook,
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
    // The group's keys (name, id…) come before the first statistic, `shifts`.
    { repeatColumns: columns.findIndex((column) => column.name === 'shifts') },
  );
  pacer.follow(table.worksheet);

  const highlighted = columns.findIndex((column) => column.name === HIGHLIGHTED_COLUMN);
  // Styles are shared objects (see xlsx-cells.ts): build the highlighted variants once.
  const withHighlight = (base: Partial<Style>[]): Partial<Style>[] =>
    base.map((style, i) => (i === highlighted ? highlightStyleOf(style) : style));
  const rowStyles = (
    values: readonly XlsxValue[],
    plain: readonly Partial<Style>[],
    marked: readonly Partial<Style>[],
  ): readonly Partial<Style>[] => {
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

  const totalValues = columns.map((column, i): XlsxValue => {
    if (SUMMARY_STAT_NAMES.has(column.name)) return xlsxValue(column.kind, column.value(sheet.total));
    return i === 0 ? TOTAL_LABEL : null;
  });
  // The label sits in the first column, whatever that column's kind: a plain bold text style.
  const boldStyles = styles.map((style, i) => boldStyleOf(i === 0 ? {} : style));
  table.addBlankRow();
  table.addRow(totalValues, rowStyles(totalValues, boldStyles, withHighlight(boldStyles)));
  table.close();
}

/** Writes the four summary sheets, in workbook order. */
export async function writeSummarySheets(
  workbook: StreamingWorkbook,
  pacer: WritePacer,
  summaries: ExportSummaries,
  threshold: number,
): Promise<void> {
  const [divisions, regions, shops, users] = summarySheets(summaries);
  await writeSummarySheet(workbook, pacer, divisions, threshold);
  await writeSummarySheet(workbook, pacer, regions, threshold);
  await writeSummarySheet(workbook, pacer, shops, threshold);
  await writeSummarySheet(workbook, pacer, users, threshold);
}
