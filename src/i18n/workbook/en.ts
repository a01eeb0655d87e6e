// The workbook in English. The columns' headers and descriptions are read from the column
// declarations (src/domain/), where each column is declared once in English; the catalog test
// holds their names to the name types, so the casts below cannot hide a missing column.

import type { Column } from '../../domain/column.js';
import { REJECTED_COLUMNS } from '../../domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../domain/shift-columns.js';
import { QUALITY_FLAGS } from '../../domain/shift-record.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../domain/summary-columns.js';
import { ALL_DIVISIONS_LABEL } from '../../domain/summary.js';
import { plural } from '../plural.js';
import type {
  ColumnName,
  RejectedColumnName,
  ShiftColumnName,
  StatColumnName,
  SummaryKeyColumns,
  WorkbookMessages,
} from './workbook-messages.js';

type AnyColumns = readonly Column<never>[];

function texts<K extends string>(
  columns: AnyColumns,
  text: (column: Column<never>) => string,
  only: (name: string) => boolean = () => true,
): Readonly<Record<K, string>> {
  return Object.fromEntries(columns.filter((c) => only(c.name)).map((c) => [c.name, text(c)])) as Record<
    K,
    string
  >;
}

const SUMMARIES: readonly AnyColumns[] = [
  DIVISION_SUMMARY_COLUMNS,
  DAY_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
];
/** The statistics: the columns every summary has (the rest are each summary's keys). */
const isStat = (name: string): boolean => SUMMARIES.every((columns) => columns.some((c) => c.name === name));
const isKey = (name: string): boolean => !isStat(name);
const header = (c: Column<never>): string => c.header;
const description = (c: Column<never>): string => c.description;

export const en: WorkbookMessages = {
  sheets: {
    overview: 'Overview',
    shifts: 'Shifts',
    byDivision: 'By division',
    byDay: 'By day',
    byRegion: 'By region',
    byShop: 'By shop',
    byUser: 'By user',
    rejected: 'Rejected',
    about: 'About',
  },
  headers: texts<ColumnName>([...SHIFT_COLUMNS, ...SUMMARIES.flat(), ...REJECTED_COLUMNS], header),
  descriptions: {
    shifts: texts<ShiftColumnName>(SHIFT_COLUMNS, description),
    statistics: texts<StatColumnName>(DIVISION_SUMMARY_COLUMNS, description, isStat),
    summaryKeys: {
      byDivision: texts<SummaryKeyColumns['byDivision']>(DIVISION_SUMMARY_COLUMNS, description, isKey),
      byDay: texts<SummaryKeyColumns['byDay']>(DAY_SUMMARY_COLUMNS, description, isKey),
      byRegion: texts<SummaryKeyColumns['byRegion']>(REGION_SUMMARY_COLUMNS, description, isKey),
      byShop: texts<SummaryKeyColumns['byShop']>(SHOP_SUMMARY_COLUMNS, description, isKey),
      byUser: texts<SummaryKeyColumns['byUser']>(USER_SUMMARY_COLUMNS, description, isKey),
    },
    rejected: texts<RejectedColumnName>(REJECTED_COLUMNS, description),
  },
  totalRow: 'All shifts',
  overview: {
    title: 'Shifts {from} to {to}',
    period: 'Period',
    periodValue: '{from} to {to} (business dates, both inclusive)',
    businessDate: 'Business date',
    headline: 'Headline',
    value: 'Value',
    shifts: 'Shifts',
    hours: 'Hours',
    startMatchRate: 'Start match rate',
    finishMatchRate: 'Finish match rate',
    bothMatchRate: 'Start and finish match rate',
    shareWithoutLocation: 'Share without location',
    shareAutoFinished: 'Share auto-finished',
    rejectedRows: 'Rejected rows',
    rowsChanged: 'Rows changed since the previous export',
    changesNotKnown: 'not known',
    changesFirstExport: 'nothing to compare with: the first export of this period',
    changesNotCounted: 'not counted: {reason}',
    changesReasonNotRecorded: 'the reason was not recorded',
    changesCounted: '{changed} changed, {added} added, {removed} removed (since export {exportId})',
    comparedWith: 'Compared with',
    comparedWithValue: 'the previous period, {period}; changes in percentage points ({unit})',
    comparedWithNothing: 'nothing yet: this is the first period of this report',
    comparedWithNoFigures: 'the previous period, {period}, has no figures to compare with',
    change: 'Change vs previous period',
    pointsUnit: 'pp',
    belowThresholdValue: '{below} of {total} below {threshold} start match (red on {sheet})',
    chartData: 'Chart data',
    chartDataBelow: 'Below the charts, from row {row}',
    chartDataNone: 'none: no shifts in this period',
    threshold: 'Threshold',
    groups: {
      division: {
        header: 'Division',
        belowThreshold: 'Divisions below the threshold',
        barTitle: 'Start match rate by division, lowest first',
        dailyTitle: 'Daily start match rate: all divisions',
        all: ALL_DIVISIONS_LABEL,
      },
      region: {
        header: 'Region',
        belowThreshold: 'Regions below the threshold',
        barTitle: 'Start match rate by region, lowest first',
        dailyTitle: 'Daily start match rate: all regions',
        all: 'All regions',
      },
    },
    dailyLowestTitle: plural({
      one: 'Daily start match rate: all divisions and the lowest division',
      other: 'Daily start match rate: all divisions and the {n} lowest',
    }),
    barTable: '{title} (the bar chart)',
    lineTable: '{title} (the line chart)',
  },
  about: {
    title: 'Shift export',
    periodFrom: 'Period from',
    periodTo: 'Period to',
    businessDate: 'Business date',
    businessDateRule: 'A shift counts for the local date of its start: start_time + start_time_offset.',
    times: 'Times',
    timesText:
      "Local times are the shop's wall clock (time + offset); UTC times are as the source sent them. Dates and times show in your spreadsheet's own date order, times to the minute: the cells keep the seconds (see them with a custom format such as yyyy-mm-dd hh:mm:ss), as do the CSV and Parquet files. Fractions of a second are dropped.",
    generatedAt: 'Generated at',
    source: 'Source',
    exportId: 'Export ID',
    toolVersion: 'Tool version',
    sheets: 'Sheets',
    shiftsSheets: 'Shifts sheets',
    shiftsSheetsText: plural({
      one: 'At most {n} shift per sheet; more continue on "{second}", "{third}"…',
      other: 'At most {n} shifts per sheet; more continue on "{second}", "{third}"…',
    }),
    highlight: 'Highlight',
    highlightText: 'Start match rates below {threshold} are filled red on the {sheets} sheets.',
    totals: 'Totals',
    totalsText:
      'The "{total}" row under the table of the {sheets} sheets covers every exported shift; {byDay} gives each day an "{allDivisions}" row first instead.',
    distances: 'Distances',
    distancesText: 'The source states no unit for distances: they are shown exactly as sent.',
    text: 'Text',
    textText:
      'Text is shown as sent, never as a formula. A character a spreadsheet cannot hold (a control character, U+FFFE, U+FFFF, half of a surrogate pair) shows as \uFFFD, here and in the CSV files, and the shift is flagged text_replaced; the Rejected sheet shows raw JSON the same way, rejected.csv keeps it exactly as received. Excel holds at most {max} characters in a cell: longer text is cut and ends with "… [truncated]".',
    counts: 'Counts',
    value: 'Value',
    meaning: 'Meaning',
    countMeanings: {
      fetched: 'Rows received from the source for the period, widened by the possible UTC offsets.',
      exported: 'Shifts on the Shifts sheet(s): placed, inside the period, first of their id.',
      rejected: 'Rows that could not be placed (see the Rejected sheet).',
      duplicates: 'Rows whose id had been seen before; only the first was exported.',
      outside_window: 'Placed rows whose business date lies outside the period.',
      flagged: 'Exported shifts with at least one quality flag.',
    },
    filteredOutMeaning:
      "Valid rows outside the export's filter (its divisions, regions or shops): not exported, not rejected.",
    qualityFlag: 'Quality flag',
    qualityFlags: QUALITY_FLAGS,
    sheet: 'Sheet',
    column: 'Column',
    csvName: 'CSV name',
    eachSheet: '{sheets} (each)',
  },
  print: {
    pageOfPages: 'Page {page} of {pages}',
  },
};
