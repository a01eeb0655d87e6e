// shifts.xlsx, streamed straight into a destination stream: the Shifts sheet(s) while the shifts
// arrive, then the summary sheets, Rejected, About and Overview at finish(); Overview, written last
// because its figures are known last, is listed first (overview-sheet.ts). Never the whole workbook in
// memory: rows are committed as they come, the writer waits for the destination (see write-pacer),
// and rejected rows wait in a temp file (see rejected-spool). The same input and options give the
// same bytes.
//
// Usage: for each row `const p = writer.addShift(r); if (p) await p;` (likewise addRejected), then
// `await writer.finish(summaries, about)`; on any failure `await writer.abort(error)`.

import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
import { REJECTED_COLUMNS, type RejectedRow } from '../../domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../domain/shift-columns.js';
import type { Period } from '../../domain/period.js';
import type { ShiftRecord } from '../../domain/shift-record.js';
import type { ExportSummaries } from '../../domain/summary.js';
import { ConfigError } from '../../errors.js';
import { DEFAULT_REPORT_LANGUAGE, type ReportLanguage } from '../../i18n/report-language.js';
import { fill, textFormat } from '../../i18n/text-format.js';
import { en } from '../../i18n/workbook/en.js';
import { workbookMessages } from '../../i18n/workbook/workbook-catalog.js';
import type { WorkbookMessages } from '../../i18n/workbook/workbook-messages.js';
import { writeAboutSheet, type WorkbookAbout } from './about-sheet.js';
import { XlsxWorkbook, type WorkbookSetup } from './exceljs-adapter.js';
import { writeOverviewSheet, type OverviewGroups } from './overview-sheet.js';
import { pageHeaderFooter } from './page-header-footer.js';
import { RejectedSpool } from './rejected-spool.js';
import {
  SHIFT_SHARED_TEXT_COLUMNS,
  SHIFT_STYLES,
  shiftRowValues,
  shiftStyleIds,
  type ShiftStyleIds,
} from './shift-rows-xml.js';
import { SharedTexts, type SharedTextIds, type SharedTextLimits } from './shared-texts.js';
import { writeSummarySheets } from './summary-sheets.js';
import { TableSheet, type PrintLayout, type TableColumn } from './table-sheet.js';
import { columnHeader } from './workbook-texts.js';
import { WriteFailure } from './write-failure.js';
import { WritePacer, type PacerStats } from './write-pacer.js';
import { cellStyleOf, columnWidthOf, xlsxValue, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';
import { XlsxWriteError, XlsxWriterClosedError } from './xlsx-write-error.js';

export type { WorkbookAbout } from './about-sheet.js';
export { BUSINESS_DATE_RULE } from './about-sheet.js';

/** Data rows per sheet: Excel's 1,048,576 rows less the header. */
export const EXCEL_SHEET_DATA_ROWS = 1_048_575;

export interface ShiftsWorkbookOptions extends WorkbookSetup {
  /** Start match rates below this ratio (0..1, e.g. 0.8) are highlighted on the summary sheets. */
  readonly matchRateThreshold: number;
  /** Data rows per Shifts sheet before "Shifts (2)" begins; default EXCEL_SHEET_DATA_ROWS. */
  readonly sheetRowLimit?: number;
  /** Where rejected rows wait until finish(); default os.tmpdir(). */
  readonly tempDir?: string;
  /** What the Overview's bars compare: divisions (default), or regions in a division's workbook. */
  readonly chartBy?: OverviewGroups;
  /**
   * The language the reader reads (default en): sheet names, headers, labels, chart titles and the
   * About sheet, and docProps/core.xml's dc:language. Cells stay data in every language.
   */
  readonly language?: ReportLanguage;
  /** The export's period: known from the start, as every printed page's header names it. */
  readonly period: Period;
  /** A division's workbook: the division's name, in every printed page's header. */
  readonly divisionName?: string;
  /** Bounds of the Shifts sheets' shared-strings table; default SHARED_TEXT_LIMITS. */
  readonly sharedTextLimits?: SharedTextLimits;
}

export interface WorkbookWriterStats extends PacerStats {
  readonly shifts: number;
  readonly rejected: number;
  readonly shiftSheets: number;
}

export const SHIFTS_SHEET_NAME = en.sheets.shifts;

/** The name of the `index`th Shifts sheet (1-based): "Shifts", "Shifts (2)"… in the workbook's language. */
export function shiftsSheetName(index: number, messages: WorkbookMessages = en): string {
  const name = messages.sheets.shifts;
  return index === 1 ? name : `${name} (${index})`;
}

type State = 'open' | 'finishing' | 'finished' | 'aborted';

/** The workbook's title, its Overview's and its printed pages': "Shifts 2024-03-25 to 2024-03-31". */
function workbookTitle(messages: WorkbookMessages, language: ReportLanguage, { from, to }: Period): string {
  return fill(messages.overview.title, { from, to, period: textFormat(language).period(from, to) });
}

function checkOptions(options: ShiftsWorkbookOptions): number {
  const limit = options.sheetRowLimit ?? EXCEL_SHEET_DATA_ROWS;
  if (!Number.isInteger(limit) || limit < 1 || limit > EXCEL_SHEET_DATA_ROWS) {
    throw new ConfigError(
      `sheetRowLimit must be a whole number from 1 to ${EXCEL_SHEET_DATA_ROWS}, not ${limit}`,
    );
  }
  const threshold = options.matchRateThreshold;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new ConfigError(
      `the match-rate threshold must be a ratio from 0 to 1 (0.8 for 80%), not ${threshold}`,
    );
  }
  if (Number.isNaN(options.createdAt.getTime())) throw new ConfigError('createdAt is not a valid date');
  return limit;
}

/** The Shifts sheet's columns: only the header (and the width that fits it) follow the language. */
function shiftTable(messages: WorkbookMessages): readonly TableColumn[] {
  return SHIFT_COLUMNS.map((column, i) => {
    const header = columnHeader(messages, column);
    return { header, width: columnWidthOf({ ...column, header }), style: SHIFT_STYLES[i] ?? {} };
  });
}
/**
 * The Shifts sheet on paper: its 37 columns are about 800 characters wide. At 100% LibreOffice
 * prints ~16 pages across (a ~5-column slice each); one page wide would be ~15%, unreadable. Six
 * pages across prints at ~60% (53 rows a page), still readable, each page with the header row and
 * the row's keys (Shift ID, Business date) repeated; pages run down first, so the first sixth of
 * the printout is who and where for every shift. The demo's week (5,209 shifts) went from 2,587
 * pages to 621 for the whole workbook (docs/analysts.md, "The workbook").
 */
export const SHIFTS_PRINT_LAYOUT: PrintLayout = { pagesWide: 6, repeatColumns: 2 };

const REJECTED_STYLES: readonly XlsxStyle[] = REJECTED_COLUMNS.map((column) => cellStyleOf(column));
function rejectedTable(messages: WorkbookMessages): readonly TableColumn[] {
  return REJECTED_COLUMNS.map((column, i) => {
    const header = columnHeader(messages, column);
    return { header, width: columnWidthOf({ ...column, header }), style: REJECTED_STYLES[i] ?? {} };
  });
}

export class ShiftsWorkbookWriter {
  private readonly workbook: XlsxWorkbook;
  private readonly failure = new WriteFailure();
  private readonly pacer: WritePacer;
  private readonly spool: RejectedSpool;
  private readonly language: ReportLanguage;
  private readonly messages: WorkbookMessages;
  private readonly shiftTable: readonly TableColumn[];
  private readonly sharedTexts: SharedTexts;
  /** Data rows per Shifts sheet. */
  readonly sheetRowLimit: number;
  private shiftsSheet: TableSheet;
  private shiftSheetNames: string[];
  private shifts = 0;
  private state: State = 'open';

  constructor(
    private readonly sink: Writable,
    private readonly options: ShiftsWorkbookOptions,
  ) {
    this.sheetRowLimit = checkOptions(options);
    this.language = options.language ?? DEFAULT_REPORT_LANGUAGE;
    this.messages = workbookMessages(this.language);
    this.shiftTable = shiftTable(this.messages);
    this.shiftSheetNames = [shiftsSheetName(1, this.messages)];
    this.failure.watch(sink);
    const headerFooter = pageHeaderFooter({
      title: workbookTitle(this.messages, this.language, options.period),
      ...(options.divisionName === undefined
        ? {}
        : { division: `${this.messages.headers.division_name}: ${options.divisionName}` }),
      pageOfPages: this.messages.print.pageOfPages,
    });
    this.workbook = new XlsxWorkbook(sink, { ...options, language: this.language, headerFooter });
    this.workbook.onError((error) =>
      this.failure.fail(new XlsxWriteError('the workbook archive failed', error)),
    );
    this.pacer = new WritePacer(sink, this.failure);
    this.spool = new RejectedSpool(options.tempDir ?? tmpdir());
    this.sharedTexts = new SharedTexts(this.workbook.sharedStrings, options.sharedTextLimits);
    this.shiftsSheet = this.openShiftsSheet();
  }

  get stats(): WorkbookWriterStats {
    return {
      ...this.pacer.stats,
      shifts: this.shifts,
      rejected: this.spool.count,
      shiftSheets: this.shiftSheetNames.length,
    };
  }

  /** Writes one shift; await the returned promise when there is one. */
  addShift(record: ShiftRecord): Promise<void> | undefined {
    return this.addShiftValues(shiftRowValues(record));
  }

  /** Writes one shift given as its cells' values (shiftRowValues); await the returned promise when there is one. */
  addShiftValues(values: readonly XlsxValue[]): Promise<void> | undefined {
    this.assertOpen('addShift');
    if (this.failure.error !== undefined) return Promise.reject(this.failure.error);
    if (this.shiftsSheet.dataRows >= this.sheetRowLimit) this.rollOver();
    this.shiftsSheet.addRow(values, SHIFT_STYLES);
    this.shifts++;
    return this.pacer.afterRow();
  }

  /** The style ids the current Shifts sheet has registered, for rendering rows elsewhere (shift-rows-xml.ts). */
  shiftStyles(): ShiftStyleIds {
    return shiftStyleIds(this.shiftsSheet.knownStyles());
  }

  /**
   * The Shifts sheets' shared texts: rows rendered elsewhere hold the indices this gives, asked in
   * the order the rows are written (shared-texts.ts).
   */
  get shiftTexts(): SharedTextIds {
    return this.sharedTexts;
  }

  /**
   * Writes `rows` shifts rendered elsewhere (renderShiftRowsXml), numbered from `firstRow`: the
   * next row of the current Shifts sheet, and all within it; or, when the current sheet is full,
   * from row 2 of the next sheet, which they start. Await the returned promise.
   */
  addRenderedShifts(xml: Buffer, rows: number, firstRow: number): Promise<void> {
    this.assertOpen('addRenderedShifts');
    if (this.failure.error !== undefined) return Promise.reject(this.failure.error);
    if (firstRow === 2 && rows > 0 && this.shiftsSheet.dataRows >= this.sheetRowLimit) this.rollOver();
    if (this.shiftsSheet.dataRows + rows > this.sheetRowLimit)
      throw new Error(`${rows} rendered rows do not fit the sheet's ${this.sheetRowLimit} rows`);
    this.shiftsSheet.addRowXml(xml, rows, firstRow);
    this.shifts += rows;
    return this.pacer.pause();
  }

  /** Keeps a rejected row for the Rejected sheet; await the returned promise when there is one. */
  addRejected(row: RejectedRow): Promise<void> | undefined {
    this.assertOpen('addRejected');
    if (this.failure.error !== undefined) return Promise.reject(this.failure.error);
    return this.spool.add(row);
  }

  /** Writes the remaining sheets and completes the workbook; the sink is ended. */
  async finish(summaries: ExportSummaries, about: WorkbookAbout): Promise<void> {
    this.assertOpen('finish');
    this.state = 'finishing';
    try {
      this.failure.throwIfFailed();
      this.shiftsSheet.close();
      const { messages, language } = this;
      await writeSummarySheets(
        this.workbook,
        this.pacer,
        summaries,
        this.options.matchRateThreshold,
        messages,
      );
      await this.writeRejectedSheet();
      await writeAboutSheet(this.workbook, this.pacer, about, {
        matchRateThreshold: this.options.matchRateThreshold,
        sheetRowLimit: this.sheetRowLimit,
        shiftSheetNames: this.shiftSheetNames,
        language,
      });
      const overview = await writeOverviewSheet(this.workbook, this.pacer, summaries, {
        period: about.period,
        businessDateRule: about.businessDateRule ?? messages.about.businessDateRule,
        counts: about.counts,
        changes: about.changes,
        ...(about.comparison === undefined ? {} : { comparison: about.comparison }),
        matchRateThreshold: this.options.matchRateThreshold,
        ...(this.options.chartBy === undefined ? {} : { chartBy: this.options.chartBy }),
        language,
      });
      this.workbook.listFirst(overview);
      await this.commitWorkbook(workbookTitle(messages, language, about.period));
    } catch (error) {
      this.stop(error);
      // The export's error is the one to report, not a failure to remove the temp file.
      await this.spool.dispose().catch(() => undefined);
      throw this.failure.error ?? error;
    }
    this.state = 'finished';
    await this.spool.dispose();
  }

  /**
   * Gives up: no more bytes are written, the sink is destroyed with the error (so a destination
   * such as an S3 upload fails instead of completing a broken file), the temp file is removed.
   * Safe to call in any state; does nothing once the workbook is finished.
   */
  async abort(error: unknown): Promise<void> {
    if (this.state === 'finished') return;
    this.stop(error);
    await this.spool.dispose();
  }

  private stop(error: unknown): void {
    if (this.state === 'aborted') return;
    this.state = 'aborted';
    const reason =
      error instanceof Error
        ? error
        : new XlsxWriteError(`the workbook was abandoned: ${String(error)}`, error);
    this.failure.fail(reason);
    this.failure.stopWatching();
    // The sink first: aborting the archive ends its output, which must not reach the sink as a
    // normal end (a destination would then publish a truncated file).
    if (!this.sink.destroyed) this.sink.destroy(reason);
    this.workbook.abort();
  }

  private assertOpen(operation: string): void {
    if (this.state !== 'open') throw new XlsxWriterClosedError(operation);
  }

  private openShiftsSheet(previous?: TableSheet): TableSheet {
    const name = this.shiftSheetNames[this.shiftSheetNames.length - 1] ?? this.messages.sheets.shifts;
    const known = previous?.knownStyles();
    const sheet = TableSheet.open(this.workbook, name, this.shiftTable, SHIFTS_PRINT_LAYOUT, known, {
      columns: SHIFT_SHARED_TEXT_COLUMNS,
      ids: this.sharedTexts,
    });
    this.pacer.follow(sheet.sheet);
    return sheet;
  }

  private rollOver(): void {
    this.shiftsSheet.close();
    this.shiftSheetNames.push(shiftsSheetName(this.shiftSheetNames.length + 1, this.messages));
    this.shiftsSheet = this.openShiftsSheet(this.shiftsSheet);
  }

  private async writeRejectedSheet(): Promise<void> {
    const table = TableSheet.open(
      this.workbook,
      this.messages.sheets.rejected,
      rejectedTable(this.messages),
      {
        pagesWide: 1,
      },
    );
    this.pacer.follow(table.sheet);
    for await (const row of this.spool.read()) {
      table.addRow(
        REJECTED_COLUMNS.map((column) => xlsxValue(column.kind, column.value(row))),
        REJECTED_STYLES,
      );
      const pause = this.pacer.afterRow();
      if (pause !== undefined) await pause;
    }
    table.close();
  }

  private async commitWorkbook(title: string): Promise<void> {
    await this.failure.race(this.workbook.finish({ title }));
    this.failure.stopWatching();
    this.failure.throwIfFailed();
  }
}
