// Owns the shape of every text a reader sees in the workbook shifts.xlsx: sheet names, the header
// rows, the Overview's labels and chart titles, the About sheet, and each column's header and
// description. Each language is a `const x: WorkbookMessages`, so a missing text fails the build.
// Columns are keyed by their stable name (the CSV and Parquet name, which never changes); a test
// holds these names to the declared columns, so a new column without texts fails there.
//
// Placeholders are `{name}` (filled by fill()); a text with a count is a PluralMessage. What is
// not here stays as it is in every language, because automation reads it: cell values (the
// summaries' names, the rejected rows' reasons), quality-flag and count codes, CSV names.

import type { PluralMessage } from '../plural.js';

/** The columns of the Shifts sheet (src/domain/shift-columns.ts), by name. */
export type ShiftColumnName =
  | 'shift_id'
  | 'business_date'
  | 'user_id'
  | 'user_login'
  | 'user_display_name'
  | 'user_position'
  | 'user_org_level'
  | 'division_id'
  | 'division_external_id'
  | 'division_name'
  | 'division_managers'
  | 'region_id'
  | 'region_name'
  | 'shop_id'
  | 'shop_sap'
  | 'shop_locality'
  | 'shop_address'
  | 'start_local'
  | 'start_utc_offset'
  | 'finish_local'
  | 'finish_utc_offset'
  | 'start_utc'
  | 'finish_utc'
  | 'duration_seconds'
  | 'duration_hours'
  | 'start_location_lat'
  | 'start_location_lon'
  | 'start_location_distance'
  | 'start_location_match'
  | 'finish_location_lat'
  | 'finish_location_lon'
  | 'finish_location_distance'
  | 'finish_location_match'
  | 'location_status'
  | 'auto_finished'
  | 'comment'
  | 'quality_flags';

/** The statistic columns every summary sheet has (src/domain/summary-columns.ts). */
export type StatColumnName =
  | 'shifts'
  | 'hours'
  | 'start_checked'
  | 'start_matched'
  | 'start_match_rate'
  | 'finish_checked'
  | 'finish_matched'
  | 'finish_match_rate'
  | 'both_checked'
  | 'both_matched'
  | 'both_match_rate'
  | 'no_location'
  | 'start_distance_median'
  | 'start_distance_p90'
  | 'finish_distance_median'
  | 'finish_distance_p90'
  | 'auto_finished'
  | 'auto_finished_rate';

/** The columns of the Rejected sheet (src/domain/rejected-row.ts). */
export type RejectedColumnName = 'shift_id' | 'reason' | 'raw_json';

/** Each summary sheet's key columns (before the statistics), by sheet. */
export interface SummaryKeyColumns {
  readonly byDivision: 'division_id' | 'division_external_id' | 'division_name';
  readonly byDay: 'business_date' | 'division_id' | 'division_name';
  readonly byRegion: 'region_id' | 'region_name' | 'division_id' | 'division_name';
  readonly byShop: 'shop_id' | 'shop_sap' | 'shop_locality' | 'region_name' | 'division_name';
  readonly byUser: 'user_id' | 'user_login' | 'user_display_name';
}
export type SummarySheetKey = keyof SummaryKeyColumns;

export type ColumnName = ShiftColumnName | StatColumnName | RejectedColumnName;

/** The export's counts the About sheet explains (the manifest's `counts` keys). */
export type CountName = 'fetched' | 'exported' | 'rejected' | 'duplicates' | 'outside_window' | 'flagged';

/** The quality flags the About sheet explains (src/domain/shift-record.ts, QUALITY_FLAGS). */
export type QualityFlagName =
  'duration_mismatch' | 'location_out_of_range' | 'invalid_<field>' | 'invalid_utf8' | 'text_replaced';

/** Sheet names: at most 31 characters, none of `: \ / ? * [ ]` or `'`, unique (a test checks each catalog). */
export interface SheetNames extends Readonly<Record<SummarySheetKey, string>> {
  readonly overview: string;
  /** The first Shifts sheet; more are "<name> (2)", "<name> (3)"… */
  readonly shifts: string;
  readonly rejected: string;
  readonly about: string;
}

/** The words of the Overview for what it compares: divisions, or a division's regions. */
export interface GroupWords {
  /** The group column of the bar chart's table. */
  readonly header: string;
  /** The headline label of how many groups are below the threshold. */
  readonly belowThreshold: string;
  /** The bar chart's title. */
  readonly barTitle: string;
  /** The daily chart's title when it has the line of every shift alone. */
  readonly dailyTitle: string;
  /** The line (and the By day row) of every shift: "All divisions", "All regions". */
  readonly all: string;
}

export interface OverviewMessages {
  /** The sheet's title and the workbook's; `{from}` `{to}` as YYYY-MM-DD, `{period}` as the reader writes it. */
  readonly title: string;
  readonly period: string;
  /** `{from}` `{to}` `{period}` as in title. */
  readonly periodValue: string;
  readonly businessDate: string;
  readonly headline: string;
  readonly value: string;
  readonly shifts: string;
  readonly hours: string;
  readonly startMatchRate: string;
  readonly finishMatchRate: string;
  readonly bothMatchRate: string;
  readonly shareWithoutLocation: string;
  readonly shareAutoFinished: string;
  readonly rejectedRows: string;
  readonly rowsChanged: string;
  readonly changesNotKnown: string;
  readonly changesFirstExport: string;
  /** `{reason}`: the manifest's message, as recorded. */
  readonly changesNotCounted: string;
  readonly changesReasonNotRecorded: string;
  /** `{changed}` `{added}` `{removed}` as numbers, `{exportId}`. */
  readonly changesCounted: string;
  /** The label of the line naming the previous period the changes are against. */
  readonly comparedWith: string;
  /** `{period}`: the previous period as the reader writes it; `{unit}`: pointsUnit. */
  readonly comparedWithValue: string;
  /** The definition's first period: no previous period is published. */
  readonly comparedWithNothing: string;
  /** The previous period is published without figures for this workbook: `{period}`. */
  readonly comparedWithNoFigures: string;
  /** The header of the change columns beside the rates. */
  readonly change: string;
  /**
   * Percentage points, abbreviated, as the change cells' number format shows it after the number
   * (`+1.2 pp`). Inside a format code's quotes: no `"` (a test checks each catalog).
   */
  readonly pointsUnit: string;
  /** `{below}` of `{total}` groups below `{threshold}` (a rate); `{sheet}`: where they are red. */
  readonly belowThresholdValue: string;
  readonly chartData: string;
  /** `{row}`: the first row of the charts' tables. */
  readonly chartDataBelow: string;
  readonly chartDataNone: string;
  readonly threshold: string;
  readonly groups: Readonly<Record<'division' | 'region', GroupWords>>;
  /** The daily chart's title with the lowest divisions: `{n}` of them. */
  readonly dailyLowestTitle: PluralMessage;
  /** The bar chart's table's title; `{title}`: the chart's. */
  readonly barTable: string;
  /** The line chart's table's title; `{title}`: the chart's. */
  readonly lineTable: string;
}

export interface AboutMessages {
  readonly title: string;
  readonly periodFrom: string;
  readonly periodTo: string;
  readonly businessDate: string;
  /** The business-date rule, unless the export gives its own. */
  readonly businessDateRule: string;
  readonly times: string;
  readonly timesText: string;
  readonly generatedAt: string;
  readonly source: string;
  readonly exportId: string;
  readonly toolVersion: string;
  readonly sheets: string;
  readonly shiftsSheets: string;
  /** `{n}` shifts per sheet; `{second}` `{third}`: the next sheets' names. */
  readonly shiftsSheetsText: PluralMessage;
  readonly highlight: string;
  /** `{threshold}` (a rate), `{sheets}`: the summary sheets. */
  readonly highlightText: string;
  readonly totals: string;
  /** `{total}`: the total row's label; `{sheets}`; `{byDay}`; `{allDivisions}`. */
  readonly totalsText: string;
  readonly distances: string;
  readonly distancesText: string;
  readonly text: string;
  /** `{max}`: the characters a cell holds. */
  readonly textText: string;
  readonly counts: string;
  readonly value: string;
  readonly meaning: string;
  readonly countMeanings: Readonly<Record<CountName, string>>;
  readonly filteredOutMeaning: string;
  readonly qualityFlag: string;
  readonly qualityFlags: Readonly<Record<QualityFlagName, string>>;
  readonly sheet: string;
  readonly column: string;
  readonly csvName: string;
  /** The statistics' rows, shared by the summary sheets: `{sheets}`. */
  readonly eachSheet: string;
}

/** The printed page's header and footer (page-header-footer.ts). */
export interface PrintMessages {
  /** The footer: `{page}` and `{pages}` become the page number and the page count. */
  readonly pageOfPages: string;
}

/** What each column's description says on the About sheet, by sheet. */
export interface ColumnDescriptions {
  readonly shifts: Readonly<Record<ShiftColumnName, string>>;
  readonly statistics: Readonly<Record<StatColumnName, string>>;
  readonly summaryKeys: { readonly [S in SummarySheetKey]: Readonly<Record<SummaryKeyColumns[S], string>> };
  readonly rejected: Readonly<Record<RejectedColumnName, string>>;
}

export interface WorkbookMessages {
  readonly sheets: SheetNames;
  /** Every column's header, the same on every sheet it appears on. */
  readonly headers: Readonly<Record<ColumnName, string>>;
  readonly descriptions: ColumnDescriptions;
  /** The label of a summary sheet's total row. */
  readonly totalRow: string;
  readonly overview: OverviewMessages;
  readonly about: AboutMessages;
  readonly print: PrintMessages;
}
