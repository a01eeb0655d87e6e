// One table on one worksheet of the streaming workbook: a bold header row, frozen, column widths
// and per-column cell styles fixed before the first row (exceljs ignores them afterwards), rows
// committed as soon as they are added, and an autofilter over header and data when it closes.

import type { Style, Worksheet } from 'exceljs';
import type { StreamingWorkbook } from './create-workbook-writer.js';
import { BOLD_FONT, type XlsxValue } from './xlsx-cells.js';

export interface TableColumn {
  readonly header: string;
  readonly width: number;
  /** Shared by every data cell of the column (see xlsx-cells.ts for why shared). */
  readonly style: Partial<Style>;
}

const HEADER_STYLE: Partial<Style> = { font: BOLD_FONT, alignment: { vertical: 'top' } };

/**
 * How a table prints (or becomes a PDF): landscape A4 with the header row repeated on every page.
 * `fitWidth` scales the columns onto one page width (Rejected: three columns); otherwise the
 * columns keep their size and run over several pages across, readable rather than tiny, with the
 * first `repeatColumns` (the row's keys) repeated on each of those pages.
 */
export type PrintLayout = { readonly fitWidth: true } | { readonly repeatColumns: number };

function columnLetter(index: number): string {
  return String.fromCharCode(64 + index); // tables repeat at most a few leading columns: A..Z
}

function pageSetupOf(layout: PrintLayout): Partial<Worksheet['pageSetup']> {
  const common = {
    paperSize: 9,
    orientation: 'landscape',
    printTitlesRow: '1:1',
    margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.5, header: 0.3, footer: 0.3 },
  } as const;
  if ('fitWidth' in layout) return { ...common, fitToPage: true, fitToWidth: 1, fitToHeight: 0 };
  if (layout.repeatColumns < 1) return common;
  return { ...common, printTitlesColumn: `A:${columnLetter(Math.min(layout.repeatColumns, 26))}` };
}

export class TableSheet {
  private rowCount = 0;
  private filteredRows = 0;

  private constructor(
    readonly worksheet: Worksheet,
    readonly columns: readonly TableColumn[],
  ) {}

  /** Adds the sheet to the workbook and writes its header row. */
  static open(
    workbook: StreamingWorkbook,
    name: string,
    columns: readonly TableColumn[],
    print: PrintLayout,
  ): TableSheet {
    const worksheet = workbook.addWorksheet(name, {
      pageSetup: pageSetupOf(print),
      // Frozen panes only work when given here, not set later.
      views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
    });
    worksheet.columns = columns.map((column) => ({ width: column.width }));
    const sheet = new TableSheet(worksheet, columns);
    sheet.addRow(
      columns.map((column) => column.header),
      columns.map(() => HEADER_STYLE),
    );
    return sheet;
  }

  /** Data rows written so far (the header not counted). */
  get dataRows(): number {
    return Math.max(0, this.rowCount - 1);
  }

  /** Writes one row; `styles[i]` styles cell i (empty cells stay unstyled). */
  addRow(values: readonly XlsxValue[], styles: readonly (Partial<Style> | undefined)[]): void {
    const row = this.worksheet.addRow(values as XlsxValue[]);
    for (let i = 0; i < values.length; i++) {
      const style = styles[i];
      if (style !== undefined && values[i] !== null) row.getCell(i + 1).style = style;
    }
    row.commit();
    this.rowCount++;
  }

  /** An empty row (it still takes a row number). */
  addBlankRow(): void {
    this.addRow(
      this.columns.map(() => null),
      [],
    );
  }

  /** Rows written so far are the filtered table; rows after it (a total) stay out of the filter. */
  endFilteredRange(): void {
    this.filteredRows = this.rowCount;
  }

  /** Sets the autofilter and commits the sheet: no rows can be added afterwards. */
  close(): void {
    const last = this.filteredRows > 0 ? this.filteredRows : this.rowCount;
    this.worksheet.autoFilter = {
      from: { row: 1, column: 1 },
      to: { row: last, column: this.columns.length },
    };
    this.worksheet.commit();
  }
}
