// The five summary tables of an export: file name, columns and rows, in the order they are written.
// `use` hands each table's columns and rows to a generic callback, so one loop serves all five
// tables although their row types differ.

import type { Column } from '../domain/column.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../domain/summary-columns.js';
import type { ExportSummaries, SummaryRows } from '../domain/summary.js';

export type TableVisitor<T> = <R>(columns: readonly Column<R>[], rows: SummaryRows<R>) => T;

export interface SummaryTable {
  readonly fileName: string;
  use<T>(summaries: ExportSummaries, visit: TableVisitor<T>): T;
}

function table<R>(
  fileName: string,
  columns: readonly Column<R>[],
  rows: (s: ExportSummaries) => SummaryRows<R>,
): SummaryTable {
  return { fileName, use: (summaries, visit) => visit(columns, rows(summaries)) };
}

export const SUMMARY_TABLES: readonly SummaryTable[] = [
  table('summary_by_division.csv', DIVISION_SUMMARY_COLUMNS, (s) => s.divisions),
  table('summary_by_day.csv', DAY_SUMMARY_COLUMNS, (s) => s.days),
  table('summary_by_region.csv', REGION_SUMMARY_COLUMNS, (s) => s.regions),
  table('summary_by_shop.csv', SHOP_SUMMARY_COLUMNS, (s) => s.shops),
  table('summary_by_user.csv', USER_SUMMARY_COLUMNS, (s) => s.users),
];
