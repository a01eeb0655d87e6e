// The About sheet: what the workbook is (period, business-date rule, when and from where), the
// export's counts, and what every column of every sheet means — so a workbook forwarded by e-mail
// still explains itself.

import type { Column } from '../../domain/column.js';
import type { ExportCounts } from '../../domain/export-counts.js';
import type { Period } from '../../domain/period.js';
import { parseDay } from 'wfm-contract/civil-time';
import { REJECTED_COLUMNS } from '../../domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../domain/shift-columns.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../domain/summary-columns.js';
import { ConfigError } from '../../errors.js';
import type { ReportLanguage } from '../../i18n/report-language.js';
import { fill, textFormat } from '../../i18n/text-format.js';
import { en } from '../../i18n/workbook/en.js';
import { workbookMessages } from '../../i18n/workbook/workbook-catalog.js';
import type { CountName, QualityFlagName } from '../../i18n/workbook/workbook-messages.js';
import type { XlsxWorkbook } from './exceljs-adapter.js';
import { SUMMARY_STAT_NAMES, summarySheetNames, TOTALLED_SHEETS } from './summary-sheets.js';
import type { WorkbookChanges } from './overview-sheet.js';
import type { OverviewComparison } from './overview-comparison.js';
import { columnDescription, columnHeader, type DescribedTable } from './workbook-texts.js';
import type { WritePacer } from './write-pacer.js';
import { BOLD_FONT, DATE_FORMAT, EXCEL_MAX_CELL_TEXT, TEXT_FORMAT } from './xlsx-cells.js';
import type { XlsxStyle, XlsxValue } from './xlsx-cells.js';

export const BUSINESS_DATE_RULE = en.about.businessDateRule;

/** What the About sheet says about the export; given to finish(). */
export interface WorkbookAbout {
  readonly period: Period;
  /** Defaults to BUSINESS_DATE_RULE. */
  readonly businessDateRule?: string;
  readonly generatedAt: Date;
  /** IANA zone generatedAt is shown in, e.g. "Europe/Berlin"; default UTC. */
  readonly timeZone?: string;
  /** The WFM base URL the rows came from (never a token). */
  readonly sourceBaseUrl: string;
  readonly counts: ExportCounts;
  readonly exportId?: string;
  readonly toolVersion?: string;
  /** Rows changed since the previous export, as the manifest will say; absent: not known. */
  readonly changes?: WorkbookChanges;
  /** The previous period the Overview compares the rates with; absent: not known, none shown. */
  readonly comparison?: OverviewComparison;
}

/** Facts only the writer knows, shown beside the export's. */
export interface WorkbookFacts {
  readonly matchRateThreshold: number;
  readonly sheetRowLimit: number;
  readonly shiftSheetNames: readonly string[];
  /** The reader's language; default en. */
  readonly language?: ReportLanguage;
}

export const COUNT_MEANINGS: Readonly<Record<CountName, string>> = en.about.countMeanings;

export const FILTERED_OUT_MEANING = en.about.filteredOutMeaning;

/** `2024-05-08 06:00:00 +02:00 (Europe/Berlin)`: the instant as a wall clock in the named zone. */
export function formatInstantInZone(instant: Date, timeZone: string): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    }).formatToParts(instant);
  } catch (error) {
    throw new ConfigError(`"${timeZone}" is not a time zone (expected an IANA name such as Europe/Berlin)`, {
      timeZone,
      cause: String(error),
    });
  }
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')} ${offset} (${timeZone})`;
}

/** The About sheet goes through exceljs's own row API, which writes a Date as a date cell. */
type AboutValue = XlsxValue | Date;
type AboutRow = { readonly values: readonly AboutValue[]; readonly bold?: boolean };

/** The rows of the About sheet, top to bottom (columns: label, value, CSV name, meaning). */
export function aboutRows(about: WorkbookAbout, facts: WorkbookFacts): AboutRow[] {
  const language = facts.language ?? 'en';
  const messages = workbookMessages(language);
  const { sheets, about: m } = messages;
  const format = textFormat(language);
  const day = (text: string): AboutValue => {
    const days = parseDay(text);
    return days === undefined ? text : new Date(days * 86_400_000);
  };
  const columnRows = <R>(
    sheet: string,
    table: DescribedTable,
    columns: readonly Column<R>[],
    only?: (name: string) => boolean,
  ): AboutRow[] =>
    columns
      .filter((column) => only?.(column.name) ?? true)
      .map((column) => ({
        values: [
          sheet,
          columnHeader(messages, column),
          column.name,
          columnDescription(messages, table, column),
        ],
      }));
  const isKey = (name: string): boolean => !SUMMARY_STAT_NAMES.has(name);
  const summaryNames = summarySheetNames(messages);
  const summaries = summaryNames.join(', ');
  const rows: AboutRow[] = [
    { values: [m.title], bold: true },
    { values: [m.periodFrom, day(about.period.from)] },
    { values: [m.periodTo, day(about.period.to)] },
    { values: [m.businessDate, about.businessDateRule ?? m.businessDateRule] },
    { values: [m.times, m.timesText] },
    { values: [m.generatedAt, formatInstantInZone(about.generatedAt, about.timeZone ?? 'UTC')] },
    { values: [m.source, about.sourceBaseUrl] },
  ];
  if (about.exportId !== undefined) rows.push({ values: [m.exportId, about.exportId] });
  if (about.toolVersion !== undefined) rows.push({ values: [m.toolVersion, about.toolVersion] });
  rows.push(
    {
      values: [
        m.sheets,
        [sheets.overview, ...facts.shiftSheetNames, ...summaryNames, sheets.rejected, sheets.about].join(
          ', ',
        ),
      ],
    },
    {
      values: [
        m.shiftsSheets,
        fill(format.count(m.shiftsSheetsText, facts.sheetRowLimit), {
          second: `${sheets.shifts} (2)`,
          third: `${sheets.shifts} (3)`,
        }),
      ],
    },
    {
      values: [
        m.highlight,
        fill(m.highlightText, { threshold: format.rate(facts.matchRateThreshold, 2), sheets: summaries }),
      ],
    },
    {
      values: [
        m.totals,
        fill(m.totalsText, {
          total: messages.totalRow,
          sheets: TOTALLED_SHEETS.map((key) => sheets[key]).join(', '),
          byDay: sheets.byDay,
          allDivisions: messages.overview.groups.division.all,
        }),
      ],
    },
    { values: [m.distances, m.distancesText] },
    { values: [m.text, fill(m.textText, { max: format.integer(EXCEL_MAX_CELL_TEXT) })] },
    { values: [] },
    { values: [m.counts, m.value, m.meaning], bold: true },
  );
  // The counts keep their manifest names: a reader matches them with manifest.json.
  for (const key of Object.keys(m.countMeanings) as CountName[]) {
    rows.push({ values: [key, about.counts[key], m.countMeanings[key]] });
  }
  // Only an export with a filter has this count: the workbooks of the others stay as they were.
  if (about.counts.filtered_out !== undefined)
    rows.push({ values: ['filtered_out', about.counts.filtered_out, m.filteredOutMeaning] });
  rows.push({ values: [] }, { values: [m.qualityFlag, m.meaning], bold: true });
  // The flags keep their names: they are the values of the quality_flags column.
  for (const flag of Object.keys(m.qualityFlags) as QualityFlagName[])
    rows.push({ values: [flag, m.qualityFlags[flag]] });
  rows.push(
    { values: [] },
    { values: [m.sheet, m.column, m.csvName, m.meaning], bold: true },
    ...columnRows(sheets.shifts, 'shifts', SHIFT_COLUMNS),
    ...columnRows(sheets.byDivision, 'byDivision', DIVISION_SUMMARY_COLUMNS, isKey),
    ...columnRows(sheets.byDay, 'byDay', DAY_SUMMARY_COLUMNS, isKey),
    ...columnRows(sheets.byRegion, 'byRegion', REGION_SUMMARY_COLUMNS, isKey),
    ...columnRows(sheets.byShop, 'byShop', SHOP_SUMMARY_COLUMNS, isKey),
    ...columnRows(sheets.byUser, 'byUser', USER_SUMMARY_COLUMNS, isKey),
    ...columnRows(fill(m.eachSheet, { sheets: summaries }), 'statistics', DIVISION_SUMMARY_COLUMNS, (name) =>
      SUMMARY_STAT_NAMES.has(name),
    ),
    ...columnRows(sheets.rejected, 'rejected', REJECTED_COLUMNS),
  );
  return rows;
}

const STYLES = {
  text: { numFmt: TEXT_FORMAT },
  number: { numFmt: '#,##0' },
  date: { numFmt: DATE_FORMAT, alignment: { horizontal: 'left' } },
  bold: { numFmt: TEXT_FORMAT, font: BOLD_FONT },
  /** The meanings column: wrapped, so the sheet prints one page wide. */
  meaning: { numFmt: TEXT_FORMAT, alignment: { wrapText: true, vertical: 'top' } },
} satisfies Record<string, XlsxStyle>;

const MEANING_COLUMN = 3;

function styleOf(value: AboutValue, bold: boolean): XlsxStyle | undefined {
  if (bold) return STYLES.bold;
  if (typeof value === 'string') return STYLES.text;
  if (typeof value === 'number') return STYLES.number;
  if (value instanceof Date) return STYLES.date;
  return undefined;
}

export async function writeAboutSheet(
  workbook: XlsxWorkbook,
  pacer: WritePacer,
  about: WorkbookAbout,
  facts: WorkbookFacts,
): Promise<void> {
  // Landscape, one page wide: the long meanings wrap in the last column instead of running off.
  const sheet = workbook.addSheet({
    name: workbookMessages(facts.language ?? 'en').sheets.about,
    columnWidths: [24, 26, 26, 80],
    pageSetup: { paperSize: 9, orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  pacer.follow(sheet);
  for (const { values, bold = false } of aboutRows(about, facts)) {
    // Through exceljs, whose XML gate covers the texts from outside the pipeline (source URL, reasons).
    sheet.addRow(
      values,
      values.map((value, i) =>
        i === MEANING_COLUMN && typeof value === 'string' && !bold ? STYLES.meaning : styleOf(value, bold),
      ),
    );
    const pause = pacer.afterRow();
    if (pause !== undefined) await pause;
  }
  sheet.close();
}
