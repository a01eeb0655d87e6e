// The one module that talks to exceljs: every import of it and every reach into its untyped
// internals, written against exceljs 4.4.0 exactly (package.json pins it; exceljs-adapter.test.ts
// names each internal when an upgrade moves one). The same input gives the same bytes: workbook
// properties come from the export, and the zip entries carry the export's time instead of "now"
// (archiver stamps every entry with new Date() unless told otherwise; exceljs never tells it).
// Every string handed to exceljs passes the XML gate here; ready-made row XML has passed it
// already. Parts exceljs cannot write (charts and the drawings placing them, rendered by
// chart-parts.ts) are added here, in the same archive, with their relationships and content types;
// and the sheet order of workbook.xml is set here (a sheet written last may be listed first).
// The sheets' parts are deflated in blocks at once (parallel-deflate.ts) instead of by the
// archiver's one zlib stream: the archive's entry for a sheet takes its bytes, CRC and sizes.

import { once } from 'node:events';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { spreadsheetSafeText } from '../../domain/spreadsheet-safe-text.js';
import {
  CHART_CONTENT_TYPE,
  chartXml,
  DRAWING_CONTENT_TYPE,
  DRAWING_RELATIONSHIP,
  drawingRelationshipsXml,
  drawingXml,
  type ChartPlacement,
} from './chart-parts.js';
import type { XlsxStyle, XlsxValue } from './xlsx-cells.js';
import type { PageHeaderFooter } from './page-header-footer.js';
import type { SharedStringSink } from './shared-texts.js';
import { ParallelDeflateCrc32 } from './parallel-deflate.js';
import { SheetBlocks } from './sheet-blocks.js';
import { xmlSafeValue } from './xml-safe-text.js';

export interface WorkbookSetup {
  /** Workbook created/modified time and zip entry dates: the export's, for reproducible bytes. */
  readonly createdAt: Date;
  readonly creator: string;
  /** zlib level of the zip entries, 0-9 (default 1: the least CPU a row, docs/performance.md). */
  readonly compressionLevel?: number;
  /**
   * Blocks of a sheet's XML deflated at once on libuv's pool (default 4, the pool's size). The
   * bytes do not depend on it.
   */
  readonly deflateParallel?: number;
  /** docProps/core.xml's dc:language, a BCP 47 tag (en, ru, pt-BR); none: the element is left out. */
  readonly language?: string;
  /** Every sheet's printed header and footer (page-header-footer.ts); none: pages print bare. */
  readonly headerFooter?: PageHeaderFooter;
}

/** zlib level of the workbook's parts unless set: chosen by `npm run bench:zlib` (docs/performance.md). */
export const DEFAULT_COMPRESSION_LEVEL = 1;
const DEFAULT_DEFLATE_PARALLEL = 4;

export type PageSetup = Partial<ExcelJS.PageSetup>;

export interface SheetSetup {
  readonly name: string;
  readonly columnWidths: readonly number[];
  readonly pageSetup: PageSetup;
  /** The first row stays in view when scrolling. */
  readonly freezeHeader?: boolean;
}

/** The style table of the workbook being written (exceljs's StylesXform). */
export interface StyleRegistry {
  /** The cell style id (xf index) of a style; exceljs caches it by the style object's identity. */
  addStyleModel(style: XlsxStyle, cellType?: number): number;
}

/** Sheet XML written but not yet taken by the archive. */
export interface SheetBacklog {
  bytes(): number;
  drained(signal: AbortSignal): Promise<unknown>;
}

/** An entry of the archive (compress-commons's ZipArchiveEntry). */
interface ZipEntryInternals {
  getName(): string;
  getMethod(): number;
  setCrc(crc: number): void;
  setSize(size: number): void;
  setCompressedSize(size: number): void;
}

/** The archive's zip writer (zip-stream over compress-commons's ZipArchiveOutputStream). */
interface ZipModuleInternals extends NodeJS.WritableStream {
  /** The stream an entry's bytes pass through on their way in: it deflates them and counts. */
  _smartStream(
    entry: ZipEntryInternals,
    callback: (error: unknown, entry: ZipEntryInternals) => void,
  ): unknown;
  /** Records the finished entry (and writes its data descriptor). */
  _afterAppend(entry: ZipEntryInternals): void;
  emit(event: 'error', error: unknown): boolean;
}

/** The parts of exceljs's streaming writers its type declarations leave out. */
interface WorkbookInternals {
  readonly zip: {
    append(source: unknown, data?: Record<string, unknown>): unknown;
    abort(): unknown;
    on(event: 'error', listener: (error: unknown) => void): unknown;
    /** archiver's zip plugin; its engine is the zip-stream writing the archive. */
    readonly _module: { readonly engine: ZipModuleInternals };
  };
  readonly created: Date;
  /** Read by exceljs into docProps/core.xml's dc:language; missing from its writer's types. */
  language?: string;
  readonly styles: StyleRegistry;
  /**
   * The workbook's shared-strings table (exceljs's SharedStrings): add() gives a text its index,
   * the same one again for the same text. With useSharedStrings off, only we add to it; exceljs
   * writes xl/sharedStrings.xml, its relationship and content type when it holds any text.
   */
  readonly sharedStrings: { add(text: string): number };
  /** The sheets by id (a sparse array; read with map and filter, which skip its holes): workbook.xml lists them in this order. */
  _worksheets: (ExcelJS.Worksheet | undefined)[];
  /** Makes the StreamBuf of a part (a sheet's, its rels', its comments') and appends it to the archive. */
  _openStream(path: string): { batch: boolean };
}
interface WorksheetInternals {
  /**
   * A StreamBuf, piped into one PassThrough. exceljs makes it in batch mode, which copies what is
   * written; a worksheet's is not (passSheetWritesThrough), and passes each write on as it is.
   */
  readonly stream: {
    write(chunk: Buffer): unknown;
    readonly batch?: boolean;
    readonly pipes: [NodeJS.EventEmitter & { readonly _writableState: { readonly length: number } }];
  };
  /** The sheet's relationships part; returns the new relationship's id. */
  readonly _sheetRelsWriter: { addRelationship(relationship: { Target: string; Type: string }): string };
  /** Called by commit() where <legacyDrawing> belongs, right after where <drawing> belongs. */
  _writeLegacyData(): void;
}

const CONTENT_TYPES_PART = '[Content_Types].xml';
const SHEET_PART = /^xl\/worksheets\/sheet\d+\.xml$/;
const METHOD_DEFLATED = 8;

/**
 * Makes the archive deflate each sheet's part with ParallelDeflateCrc32 in place of its own
 * DeflateCRC32Stream, finishing the entry as compress-commons 4.1's _smartStream does.
 */
function deflateSheetsInParallel(
  module: ZipModuleInternals,
  level: number,
  parallel: number,
  blocks: SheetBlocks,
): void {
  const smartStream = module._smartStream.bind(module);
  module._smartStream = (entry, callback) => {
    if (entry.getMethod() !== METHOD_DEFLATED || !SHEET_PART.test(entry.getName()))
      return smartStream(entry, callback);
    const deflate = new ParallelDeflateCrc32({ level, parallel, taken: (bytes) => blocks.taken(bytes) });
    deflate.once('end', () => {
      entry.setCrc(deflate.digest().readUInt32BE(0));
      entry.setSize(deflate.size());
      entry.setCompressedSize(deflate.size(true));
      module._afterAppend(entry);
      callback(null, entry);
    });
    // Its end never comes then: the archive fails (the workbook's onError listeners hear it).
    deflate.once('error', (error: unknown) => module.emit('error', error));
    deflate.pipe(module, { end: false });
    return deflate;
  };
}

/** A worksheet's part, as _openStream names it. */
const SHEET_STREAM = /^\/xl\/worksheets\/sheet\d+\.xml$/;

/**
 * Makes each worksheet's StreamBuf pass writes on as they come instead of copying them into 64 KiB
 * buffers of its own (its batch mode): the table rows' blocks then reach the sheet's deflate
 * uncopied, which copies them and hands them back to `blocks` (sheet-blocks.ts). The archive gets
 * the same bytes in the same order; only how they are cut into writes changes.
 */
function passSheetWritesThrough(writer: WorkbookInternals): void {
  const openStream = writer._openStream.bind(writer);
  writer._openStream = (path) => {
    const stream = openStream(path);
    if (SHEET_STREAM.test(path)) stream.batch = false;
    return stream;
  };
}

class FixedDateWorkbookWriter extends ExcelJS.stream.xlsx.WorkbookWriter {
  /** <Override> elements for parts exceljs does not know (charts, drawings). */
  readonly contentTypeOverrides: string[] = [];

  // exceljs's constructor calls this after the archive exists and before anything is appended
  // (addThemes appends the first entry): the only moment every entry can still get a fixed date.
  // The same hook adds the overrides to [Content_Types].xml, which exceljs writes from its own list.
  override addThemes(): Promise<void> {
    const { zip, created } = this as unknown as WorkbookInternals;
    const append = zip.append.bind(zip);
    zip.append = (source, data) => {
      const withOverrides =
        data?.name === CONTENT_TYPES_PART && typeof source === 'string'
          ? source.replace('</Types>', `${this.contentTypeOverrides.join('')}</Types>`)
          : source;
      return append(withOverrides, { ...data, date: created });
    };
    return super.addThemes();
  }
}

/** Numbers the chart and drawing parts of one workbook and appends them to its archive. */
class ChartParts {
  private drawings = 0;
  private charts = 0;

  constructor(private readonly writer: FixedDateWorkbookWriter & WorkbookInternals) {}

  /** Writes a drawing with the placed charts; its part path from a sheet's folder. */
  addDrawing(placements: readonly ChartPlacement[]): string {
    const drawing = ++this.drawings;
    const numbers = placements.map(() => ++this.charts);
    const { zip, contentTypeOverrides } = this.writer;
    placements.forEach((placement, i) => {
      const part = `xl/charts/chart${numbers[i] ?? 0}.xml`;
      zip.append(chartXml(placement.chart), { name: part });
      contentTypeOverrides.push(`<Override PartName="/${part}" ContentType="${CHART_CONTENT_TYPE}"/>`);
    });
    const part = `xl/drawings/drawing${drawing}.xml`;
    zip.append(drawingXml(placements), { name: part });
    zip.append(drawingRelationshipsXml(numbers), { name: `xl/drawings/_rels/drawing${drawing}.xml.rels` });
    contentTypeOverrides.push(`<Override PartName="/${part}" ContentType="${DRAWING_CONTENT_TYPE}"/>`);
    return `../drawings/drawing${drawing}.xml`;
  }
}

/** Each sheet's exceljs worksheet, for the workbook (kept off XlsxSheet's public face). */
const worksheets = new WeakMap<XlsxSheet, ExcelJS.Worksheet>();

export class XlsxSheet {
  constructor(
    private readonly worksheet: ExcelJS.Worksheet & WorksheetInternals,
    private readonly chartParts: ChartParts,
  ) {
    worksheets.set(this, worksheet);
  }

  /**
   * Places native charts on the sheet (one drawing part with a chart part each). Call once, before
   * close(); the charts refer to cells by range, which need not be written yet.
   */
  addCharts(placements: readonly ChartPlacement[]): void {
    if (placements.length === 0) return;
    const target = this.chartParts.addDrawing(placements);
    const rId = this.worksheet._sheetRelsWriter.addRelationship({
      Target: target,
      Type: DRAWING_RELATIONSHIP,
    });
    const writeLegacyData = this.worksheet._writeLegacyData.bind(this.worksheet);
    // <drawing> comes right before <legacyDrawing> in a worksheet (CT_Worksheet's sequence).
    this.worksheet._writeLegacyData = () => {
      this.worksheet.stream.write(Buffer.from(`<drawing r:id="${rId}"/>`));
      writeLegacyData();
    };
  }

  /**
   * Writes one row through exceljs's own row API; `styles[i]` styles cell i when given. A Date is
   * exceljs's date cell (the About sheet's few dates); table rows hold serial numbers instead.
   */
  addRow(
    values: readonly (XlsxValue | Date)[],
    styles: readonly (XlsxStyle | undefined)[],
    /** Points; a row of wrapped text needs one (neither Excel nor LibreOffice fits it on opening). */
    height?: number,
  ): void {
    const row = this.worksheet.addRow(values.map(xmlSafeValue));
    if (height !== undefined) row.height = height;
    styles.forEach((style, i) => {
      if (style !== undefined) row.getCell(i + 1).style = style;
    });
    row.commit();
  }

  /** Writes ready-made `<row>` elements; true when the sheet copied them (the buffer is free again). */
  writeRowXml(xml: Buffer): boolean {
    this.worksheet.stream.write(xml);
    return this.worksheet.stream.batch === true;
  }

  /** The sheet's queue into the archive. */
  backlog(): SheetBacklog {
    const [target] = this.worksheet.stream.pipes;
    return {
      bytes: () => target._writableState.length,
      drained: (signal) => once(target, 'drain', { signal }),
    };
  }

  /** Sets the autofilter over rows 1..`lastRow` when given, and commits: no rows can follow. */
  close(filter?: { readonly lastRow: number; readonly columns: number }): void {
    if (filter !== undefined) {
      const to = { row: filter.lastRow, column: filter.columns };
      this.worksheet.autoFilter = { from: { row: 1, column: 1 }, to };
    }
    this.worksheet.commit();
  }
}

export class XlsxWorkbook {
  private readonly writer: FixedDateWorkbookWriter & WorkbookInternals;
  private readonly chartParts: ChartParts;
  private firstSheet: XlsxSheet | undefined;
  private readonly headerFooter: PageHeaderFooter | undefined;
  readonly styles: StyleRegistry;
  /** Where table rows are encoded on their way to a sheet's deflate, which hands them back. */
  readonly sheetBlocks = new SheetBlocks();
  /** The shared-strings table: a text's index in it (shared-texts.ts), the text through the XML gate. */
  readonly sharedStrings: SharedStringSink;

  constructor(sink: Writable, setup: WorkbookSetup) {
    const level = setup.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
    // No shared strings for exceljs's own cells (a table held in memory, and slower): only the
    // Shifts sheet's repeated texts go into the table, bounded (shared-texts.ts). Styles on.
    const options = {
      stream: sink,
      useStyles: true,
      useSharedStrings: false,
      created: setup.createdAt, // read by exceljs, missing from its option types
      zip: { zlib: { level } },
    };
    this.writer = new FixedDateWorkbookWriter(options) as FixedDateWorkbookWriter & WorkbookInternals;
    deflateSheetsInParallel(
      this.writer.zip._module.engine,
      level,
      setup.deflateParallel ?? DEFAULT_DEFLATE_PARALLEL,
      this.sheetBlocks,
    );
    passSheetWritesThrough(this.writer);
    this.writer.creator = spreadsheetSafeText(setup.creator);
    this.writer.lastModifiedBy = this.writer.creator;
    this.writer.created = setup.createdAt;
    this.writer.modified = setup.createdAt;
    if (setup.language !== undefined) this.writer.language = setup.language;
    this.styles = this.writer.styles;
    const table = this.writer.sharedStrings;
    this.sharedStrings = { add: (text) => table.add(spreadsheetSafeText(text)) };
    this.chartParts = new ChartParts(this.writer);
    this.headerFooter = setup.headerFooter;
  }

  /**
   * Lists `sheet` first in the workbook (the tab a reader opens on), wherever it was added. A
   * streamed sheet's part enters the archive when it is added, and the archive takes parts one at
   * a time, so a sheet written last must be added last; only workbook.xml's order changes.
   */
  listFirst(sheet: XlsxSheet): void {
    this.firstSheet = sheet;
  }

  addSheet(setup: SheetSetup): XlsxSheet {
    // Frozen panes only work when given here, and widths only before the first row.
    const views = [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' } as const];
    const worksheet = this.writer.addWorksheet(spreadsheetSafeText(setup.name), {
      pageSetup: setup.pageSetup,
      ...(setup.freezeHeader === true ? { views } : {}),
      ...(this.headerFooter === undefined ? {} : { headerFooter: this.headerFooter }),
    });
    worksheet.columns = setup.columnWidths.map((width) => ({ width }));
    return new XlsxSheet(worksheet as ExcelJS.Worksheet & WorksheetInternals, this.chartParts);
  }

  /** Errors of the zip archive under the workbook. */
  onError(listener: (error: unknown) => void): void {
    this.writer.zip.on('error', listener);
  }

  /** Writes the remaining parts and ends the sink. */
  finish(properties: { readonly title: string }): Promise<void> {
    this.writer.title = spreadsheetSafeText(properties.title);
    const first = this.firstSheet && worksheets.get(this.firstSheet);
    if (first !== undefined) {
      // Read in this order by workbook.xml, its relationships and the print titles' localSheetId
      // (an index into it); the part names keep the sheets' ids.
      const others = this.writer._worksheets.filter((sheet) => sheet !== undefined && sheet !== first);
      this.writer._worksheets = [first, ...others];
    }
    return this.writer.commit();
  }

  /** Stops the archive; its output ends, so destroy the sink first lest that end look complete. */
  abort(): void {
    this.writer.zip.abort();
  }
}
