// One table on one worksheet of the streaming workbook: a bold header row, frozen, column widths
// and per-column cell styles fixed before the first row, rows written as soon as they are added,
// and an autofilter over header and data when it closes. The header row goes through exceljs; the
// data rows are rendered by RowXmlRenderer (the same bytes at a fraction of the cost, row-xml.ts)
// as UTF-8 straight into a block of BLOCK_BYTES, written into the sheet a block at a time; the
// blocks come from the workbook's SheetBlocks, to which its deflate hands them back.

import type { PageSetup, XlsxSheet, XlsxWorkbook } from './exceljs-adapter.js';
import { RowXmlRenderer, type CellStyle, type KnownStyleIds, type SharedTextColumns } from './row-xml.js';
import type { SheetBlocks } from './sheet-blocks.js';
import { BOLD_FONT, columnLetters, type XlsxStyle, type XlsxValue } from './xlsx-cells.js';

export interface TableColumn {
  readonly header: string;
  readonly width: number;
  /** Shared by every data cell of the column (see xlsx-cells.ts for why shared). */
  readonly style: XlsxStyle;
}

const HEADER_STYLE: XlsxStyle = { font: BOLD_FONT, alignment: { vertical: 'top' } };

/**
 * How a table prints (or becomes a PDF): landscape A4, the header row repeated on every page, the
 * columns scaled onto `pagesWide` pages across (fitToPage: Excel and LibreOffice ignore fitToWidth
 * without it) and as many pages down as the rows need. Across several pages, the first
 * `repeatColumns` (the row's keys) are repeated on each, so every page says whose row it is.
 */
export interface PrintLayout {
  readonly pagesWide: number;
  readonly repeatColumns?: number;
}

function pageSetupOf(layout: PrintLayout): PageSetup {
  const repeat = layout.pagesWide > 1 ? (layout.repeatColumns ?? 0) : 0;
  return {
    paperSize: 9,
    orientation: 'landscape',
    printTitlesRow: '1:1',
    margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.5, header: 0.3, footer: 0.3 },
    fitToPage: true,
    fitToWidth: layout.pagesWide,
    fitToHeight: 0,
    ...(repeat > 0 ? { printTitlesColumn: `A:${columnLetters(repeat)}` } : {}),
  };
}

export class TableSheet {
  private rowCount = 0;
  private filteredRows = 0;
  private readonly rows: RowXmlRenderer;
  private readonly blocks: SheetBlocks;
  private block: Buffer;
  private blockUsed = 0;

  private constructor(
    readonly sheet: XlsxSheet,
    readonly columns: readonly TableColumn[],
    workbook: XlsxWorkbook,
    known: KnownStyleIds | undefined,
    shared: SharedTextColumns | undefined,
  ) {
    this.rows = new RowXmlRenderer(workbook.styles, known, shared);
    this.blocks = workbook.sheetBlocks;
    this.block = this.blocks.take();
  }

  /**
   * Adds the sheet to the workbook and writes its header row. `known`: style ids a sheet of the
   * same workbook already had (exceljs gives a style object the same id on every sheet).
   * `shared`: columns whose texts are written into the workbook's shared-strings table.
   */
  static open(
    workbook: XlsxWorkbook,
    name: string,
    columns: readonly TableColumn[],
    print: PrintLayout,
    known?: KnownStyleIds,
    shared?: SharedTextColumns,
  ): TableSheet {
    const sheet = workbook.addSheet({
      name,
      columnWidths: columns.map((column) => column.width),
      pageSetup: pageSetupOf(print),
      freezeHeader: true,
    });
    sheet.addRow(
      columns.map((column) => column.header),
      columns.map(() => HEADER_STYLE),
    );
    const table = new TableSheet(sheet, columns, workbook, known, shared);
    table.rowCount = 1;
    return table;
  }

  /** Data rows written so far (the header not counted). */
  get dataRows(): number {
    return Math.max(0, this.rowCount - 1);
  }

  /** Writes one row; `styles[i]` styles cell i (empty cells stay unstyled). */
  addRow(values: readonly XlsxValue[], styles: readonly CellStyle[]): void {
    this.rowCount++;
    let end = this.rows.renderInto(this.block, this.blockUsed, this.rowCount, values, styles);
    if (end < 0) {
      // Not room enough in what is left of the block: the block goes, and the row starts the next,
      // one as large as the row needs.
      this.flush();
      end = this.rows.renderInto(this.block, 0, this.rowCount, values, styles);
      while (end < 0) {
        this.block = Buffer.allocUnsafe(this.block.length * 2);
        end = this.rows.renderInto(this.block, 0, this.rowCount, values, styles);
      }
    }
    this.blockUsed = end;
  }

  /** The style ids this sheet's rows have had from the workbook's style table so far. */
  knownStyles(): KnownStyleIds {
    return this.rows.known();
  }

  /**
   * Adds `rows` data rows rendered elsewhere (another thread) as UTF-8 row XML, numbered from
   * `firstRow`, which must be the next row number of this sheet. The bytes are copied: `xml` is
   * free again when this returns.
   */
  addRowXml(xml: Buffer, rows: number, firstRow: number): void {
    if (firstRow !== this.rowCount + 1)
      throw new Error(`rows rendered from row ${firstRow} cannot follow row ${this.rowCount}`);
    this.rowCount += rows;
    for (let at = 0; at < xml.length;) {
      if (this.blockUsed === this.block.length) this.flush();
      const copied = xml.copy(this.block, this.blockUsed, at, at + this.block.length - this.blockUsed);
      this.blockUsed += copied;
      at += copied;
    }
  }

  /** Hands the encoded rows to the sheet (the pacer then sees them as backlog). */
  flush(): void {
    if (this.blockUsed === 0) return;
    const copied = this.sheet.writeRowXml(this.block.subarray(0, this.blockUsed));
    // The block is reused when the sheet has copied it. Otherwise it is on its way to the sheet's
    // deflate, which gives it back to the workbook's blocks, and the next one is taken from there:
    // a fresh 64 KiB per block is ~2 GB of short-lived buffers at 1M rows.
    if (!copied) this.block = this.blocks.take();
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
    const lastRow = this.filteredRows > 0 ? this.filteredRows : this.rowCount;
    this.sheet.close({ lastRow, columns: this.columns.length });
  }
}
