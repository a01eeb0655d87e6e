// The About sheet: what the workbook is (period, business-date rule, when and from where), the
// export's counts, and what every column of every sheet means — so a workbook forwarded by e-mail
// still explains itself.

import type { Column } from '../../domain/column.js';
import type { ExportCounts } from '../../domain/export-counts.js';
import type { Period } from '../../domain/period.js';
import { parseDay } from 'wfm-contract/civil-time';
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
import { ConfigError } from '../../errors.js';
import type { XlsxWorkbook } from './exceljs-adapter.js';
import {
  SUMMARY_SHEET_NAMES,
  SUMMARY_STAT_NAMES,
  TOTAL_LABEL,
  TOTALLED_SHEET_NAMES,
} from './summary-sheets.js';
import { OVERVIEW_SHEET_NAME, type WorkbookChanges } from './overview-sheet.js';
import type { WritePacer } from './write-pacer.js';
import { BOLD_FONT, DATE_FORMAT, EXCEL_MAX_CELL_TEXT, TEXT_FORMAT } from './xlsx-cells.js';
import type { XlsxStyle, XlsxValue } from './xlsx-cells.js';

export const BUSINESS_DATE_RULE =
  'A shift counts for the local date of its start: start_time + start_time_offset.';

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
}

/** Facts only the writer knows, shown beside the export's. */
export interface WorkbookFacts {
  readonly matchRateThreshold: number;
  readonly sheetRowLimit: number;
  readonly shiftSheetNames: readonly string[];
}

type CountName = Exclude<keyof ExportCounts, 'filtered_out'>;

export const COUNT_MEANINGS: Readonly<Record<CountName, string>> = {
  fetched: 'Rows received from the source for the period, widened by the possible UTC offsets.',
  exported: 'Shifts on the Shifts sheet(s): placed, inside the period, first of their id.',
  rejected: 'Rows that could not be placed (see the Rejected sheet).',
  duplicates: 'Rows whose id had been seen before; only the first was exported.',
  outside_window: 'Placed rows whose business date lies outside the period.',
  flagged: 'Exported shifts with at least one quality flag.',
};

export const FILTERED_OUT_MEANING =
  "Valid rows outside the export's filter (its divisions, regions or shops): not exported, not rejected.";

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

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(2)}%`;
}

/** The About sheet goes through exceljs's own row API, which writes a Date as a date cell. */
type AboutValue = XlsxValue | Date;
type AboutRow = { readonly values: readonly AboutValue[]; readonly bold?: boolean };

function columnRows<R>(
  sheet: string,
  columns: readonly Column<R>[],
  only?: (name: string) => boolean,
): AboutRow[] {
  return columns
    .filter((column) => only?.(column.name) ?? true)
    .map((column) => ({ values: [sheet, column.header, column.name, column.description] }));
}

/** The rows of the About sheet, top to bottom (columns: label, value, CSV name, meaning). */
export function aboutRows(about: WorkbookAbout, facts: WorkbookFacts): AboutRow[] {
  const day = (text: string): AboutValue => {
    const days = parseDay(text);
    return days === undefined ? text : new Date(days * 86_400_000);
  };
  const summaries = SUMMARY_SHEET_NAMES.join(', ');
  const rows: AboutRow[] = [
    { values: ['Shift export'], bold: true },
    { values: ['Period from', day(about.period.from)] },
    { values: ['Period to', day(about.period.to)] },
    { values: ['Business date', about.businessDateRule ?? BUSINESS_DATE_RULE] },
    {
      values: [
        'Times',
        "Local times are the shop's wall clock (time + offset); UTC times are as the source sent them. Fractions of a second are dropped.",
      ],
    },
    { values: ['Generated at', formatInstantInZone(about.generatedAt, about.timeZone ?? 'UTC')] },
    { values: ['Source', about.sourceBaseUrl] },
  ];
  if (about.exportId !== undefined) rows.push({ values: ['Export ID', about.exportId] });
  if (about.toolVersion !== undefined) rows.push({ values: ['Tool version', about.toolVersion] });
  rows.push(
    {
      values: [
        'Sheets',
        [OVERVIEW_SHEET_NAME, ...facts.shiftSheetNames, ...SUMMARY_SHEET_NAMES, 'Rejected', 'About'].join(
          ', ',
        ),
      ],
    },
    {
      values: [
        'Shifts sheets',
        `At most ${facts.sheetRowLimit.toLocaleString('en-US')} shifts per sheet; more continue on "Shifts (2)", "Shifts (3)"…`,
      ],
    },
    {
      values: [
        'Highlight',
        `Start match rates below ${percent(facts.matchRateThreshold)} are filled red on the ${summaries} sheets.`,
      ],
    },
    {
      values: [
        'Totals',
        `The "${TOTAL_LABEL}" row under the table of the ${TOTALLED_SHEET_NAMES.join(', ')} sheets covers every exported shift; By day gives each day an "${ALL_DIVISIONS_LABEL}" row first instead.`,
      ],
    },
    { values: ['Distances', 'The source states no unit for distances: they are shown exactly as sent.'] },
    {
      values: [
        'Text',
        `Text is shown as sent, never as a formula. A character a spreadsheet cannot hold (a control character, U+FFFE, U+FFFF, half of a surrogate pair) shows as \uFFFD, here and in the CSV files, and the shift is flagged text_replaced; the Rejected sheet shows raw JSON the same way, rejected.csv keeps it exactly as received. Excel holds at most ${EXCEL_MAX_CELL_TEXT.toLocaleString('en-US')} characters in a cell: longer text is cut and ends with "… [truncated]".`,
      ],
    },
    { values: [] },
    { values: ['Counts', 'Value', 'Meaning'], bold: true },
  );
  for (const key of Object.keys(COUNT_MEANINGS) as CountName[]) {
    rows.push({ values: [key, about.counts[key], COUNT_MEANINGS[key]] });
  }
  // Only an export with a filter has this count: the workbooks of the others stay as they were.
  if (about.counts.filtered_out !== undefined)
    rows.push({ values: ['filtered_out', about.counts.filtered_out, FILTERED_OUT_MEANING] });
  rows.push({ values: [] }, { values: ['Quality flag', 'Meaning'], bold: true });
  for (const [flag, meaning] of Object.entries(QUALITY_FLAGS)) rows.push({ values: [flag, meaning] });
  rows.push(
    { values: [] },
    { values: ['Sheet', 'Column', 'CSV name', 'Meaning'], bold: true },
    ...columnRows('Shifts', SHIFT_COLUMNS),
    ...columnRows('By division', DIVISION_SUMMARY_COLUMNS, (name) => !SUMMARY_STAT_NAMES.has(name)),
    ...columnRows('By day', DAY_SUMMARY_COLUMNS, (name) => !SUMMARY_STAT_NAMES.has(name)),
    ...columnRows('By region', REGION_SUMMARY_COLUMNS, (name) => !SUMMARY_STAT_NAMES.has(name)),
    ...columnRows('By shop', SHOP_SUMMARY_COLUMNS, (name) => !SUMMARY_STAT_NAMES.has(name)),
    ...columnRows('By user', USER_SUMMARY_COLUMNS, (name) => !SUMMARY_STAT_NAMES.has(name)),
    ...columnRows(`${summaries} (each)`, DIVISION_SUMMARY_COLUMNS, (name) => SUMMARY_STAT_NAMES.has(name)),
    ...columnRows('Rejected', REJECTED_COLUMNS),
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
    name: 'About',
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
