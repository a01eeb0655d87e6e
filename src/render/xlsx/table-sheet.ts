// One table on one worksheet of the streaming workbook: a bold header row, frozen, column widths
// and per-column cell styles fixed before the first row (exceljs ignores them afterwards), rows
// written as soon as they are added, and an autofilter over header and data when it closes.
//
// The header row goes through exceljs (it opens the sheet's columns and data); the data rows are
// rendered by RowXmlRenderer (the same bytes at a fraction of the cost, see row-xml.ts), encoded
// row by row into a block of BLOCK_BYTES and written into the sheet's stream a block at a time.
// (Row by row, because encoding one long concatenation makes V8 flatten a deep string first:
// bench/README.md.)

import type { Style, Worksheet } from 'exceljs';
import type { StreamingWorkbook } from './create-workbook-writer.js';
import { RowXmlRenderer, type CellStyle, type StyleRegistry } from './row-xml.js';
import { BOLD_FONT, type XlsxValue } from './xlsx-cells.js';
import { xmlSafeText } from './xml-safe-text.js';

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

/** Encoded rows gathered before one write into the sheet's stream (a write costs more than a row). */
export const BLOCK_BYTES = 64 * 1024;
/** The most UTF-8 bytes one UTF-16 code unit becomes. */
const MAX_BYTES_PER_UNIT = 3;

/** The parts of exceljs's streaming worksheet its type declarations leave out. */
interface WorksheetWriterInternals {
  /** exceljs's StreamBuf; in batch mode it copies what is written into its own buffers at once. */
  readonly stream: { write(chunk: Buffer): unknown; readonly batch?: boolean };
  readonly workbook: { readonly styles: StyleRegistry };
}

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
  private readonly rows: RowXmlRenderer;
  private block = Buffer.allocUnsafe(BLOCK_BYTES);
  private blockUsed = 0;

  private constructor(
    readonly worksheet: Worksheet,
    readonly columns: readonly TableColumn[],
  ) {
    this.rows = new RowXmlRenderer(this.internals.workbook.styles);
  }

  private get internals(): WorksheetWriterInternals {
    return this.worksheet as unknown as WorksheetWriterInternals;
  }

  /** Adds the sheet to the workbook and writes its header row. */
  static open(
    workbook: StreamingWorkbook,
    name: string,
    columns: readonly TableColumn[],
    print: PrintLayout,
  ): TableSheet {
    const worksheet = workbook.addWorksheet(xmlSafeText(name), {
      pageSetup: pageSetupOf(print),
      // Frozen panes only work when given here, not set later.
      views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
    });
    worksheet.columns = columns.map((column) => ({ width: column.width }));
    const header = worksheet.addRow(columns.map((column) => xmlSafeText(column.header)));
    header.eachCell((cell) => {
      cell.style = HEADER_STYLE;
    });
    header.commit();
    const sheet = new TableSheet(worksheet, columns);
    sheet.rowCount = 1;
    return sheet;
  }

  /** Data rows written so far (the header not counted). */
  get dataRows(): number {
    return Math.max(0, this.rowCount - 1);
  }

  /** Writes one row; `styles[i]` styles cell i (empty cells stay unstyled). */
  addRow(values: readonly XlsxValue[], styles: readonly CellStyle[]): void {
    this.rowCount++;
    const xml = this.rows.render(this.rowCount, values, styles);
    if (xml === '') return;
    const mostBytes = xml.length * MAX_BYTES_PER_UNIT;
    if (this.blockUsed + mostBytes > this.block.length) {
      this.flush();
      if (mostBytes > this.block.length) this.block = Buffer.allocUnsafe(mostBytes);
    }
    this.blockUsed += this.block.write(xml, this.blockUsed);
  }

  /** Hands the encoded rows to the sheet's stream (the pacer then sees them as backlog). */
  flush(): void {
    if (this.blockUsed === 0) return;
    const stream = this.internals.stream;
    stream.write(this.block.subarray(0, this.blockUsed));
    // The block is reused when the sheet's stream has copied it (exceljs writes sheets in batch
    // mode): a fresh 64 KiB per block is ~2 GB of short-lived buffers at 1M rows, which the
    // collector frees late. Otherwise the stream may still hold it, and a new one is taken.
    if (stream.batch !== true) this.block = Buffer.allocUnsafe(BLOCK_BYTES);
    this.blockUsed = 0;
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
    this.flush();
    const last = this.filteredRows > 0 ? this.filteredRows : this.rowCount;
    this.worksheet.autoFilter = {
      from: { row: 1, column: 1 },
      to: { row: last, column: this.columns.length },
    };
    this.worksheet.commit();
  }
}
