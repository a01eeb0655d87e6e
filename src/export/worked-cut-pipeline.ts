// The export thread's part of an export whose rows are worked on export threads (cut-work.ts):
// only what needs the whole report. In report order, range by range as the reader hands them out,
// it drops repeated ids (the first sighting is exported), adds each exported row's facts to the
// statistics (counted here, or on a thread of their own: shift-statistics.ts), counts every row's
// outcome, and gathers the exported rows' CSV records, Parquet values and fingerprints; a dropped
// row's bytes are skipped. With a workbook, it also says which of each range's admitted rows were
// exported, so that the thread that worked the cut renders their sheet rows once they are placed
// (sheet-rows-work.ts). The counts add up as ShiftPipeline's do:
// fetched = exported + rejected + duplicates + outside_window (+ filtered_out with a filter).

import type { ExportCounts } from '../domain/export-counts.js';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { ExportSummaries } from '../domain/summary.js';
import { DuplicateFilter } from '../pipeline/dedup.js';
import type { DivisionDirectory } from '../pipeline/enrich.js';
import type { GroupMemory } from '../pipeline/group-spill.js';
import type { ParquetCells } from '../render/parquet/parquet-cells.js';
import type { CutTextLabels } from '../render/xlsx/shared-texts.js';
import type { RowRange } from '../wfm/resume-position.js';
import {
  FACT,
  FACTS,
  LABEL,
  LABELS,
  ROW_ADMITTED,
  ROW_FILTERED_OUT,
  ROW_OUTSIDE_WINDOW,
  ROW_REJECTED,
  type WorkedCut,
} from './cut-work.js';
import { LocalStatistics, textAt, type ShiftStatistics } from './shift-statistics.js';
import type { SheetRows, SheetRowsPlace, SheetRowsRequest } from './sheet-rows-work.js';

/** Where the threads that worked the cuts render their sheet rows (shift-threads.ts). */
export interface SheetRowsThreads {
  renderSheetRows(request: SheetRowsRequest): Promise<SheetRows>;
  /** Rows of cut `seq` are written: their buffer goes back to the thread that rendered them. */
  reuseSheetRows(seq: number, buffer: ArrayBuffer): void;
}

/** Some exported rows of one cut, whose sheet rows the thread that worked it renders once placed. */
export interface SheetRowsPart {
  readonly rows: number;
  /**
   * The labels of the cut's shared texts (cut-work.ts, LABEL.sharedTexts): the export's thread
   * gives them their indices (shared-texts.ts, cutTextIds) before it asks for the rows. A view of
   * the cut's buffer: read it before the batch's write returns.
   */
  readonly texts: CutTextLabels;
  render(place: SheetRowsPlace): Promise<SheetRows>;
  /** The rendered rows are written (copied into every workbook): nothing here reads them again. */
  written(rows: SheetRows): void;
}

/** The exported rows of a batch, rendered on the export threads. */
export interface WorkedRows {
  readonly count: number;
  /**
   * Their shifts.csv records, in order, as pieces of the cuts' buffers (no copy: the file's writer
   * copies them once, into its chunks); empty when the export writes no CSV.
   */
  readonly csv: readonly Buffer[];
  /**
   * Their shifts.parquet values, in order, as runs of the cuts' cells (no copy: the file's writer
   * copies them into its row group); empty when the export writes no Parquet.
   */
  readonly parquet: readonly ParquetRun[];
  /** Their ids, and their 8-byte fingerprints one after another, for change tracking. */
  readonly ids: Float64Array;
  readonly hashes: Buffer;
  /** Their sheet rows, in order, when the export writes a workbook. */
  readonly sheet?: readonly SheetRowsPart[];
  /** Their division spool's lines, in order, when the export is split by division. */
  readonly spool?: SpoolLines;
}

/** Rows first..end-1 of a cut's Parquet values. */
export interface ParquetRun {
  readonly cells: ParquetCells;
  readonly first: number;
  readonly end: number;
}

/** Exported rows' spool lines (division-spool.ts): line k ends at `ends[k]`, under `divisionIds[k]`. */
export interface SpoolLines {
  readonly lines: Buffer;
  readonly ends: Int32Array;
  readonly divisionIds: Float64Array;
}

/** The spool lines of a batch, gathered run by run; `rows`: at most how many. */
class SpoolGathering {
  readonly #pieces: Buffer[] = [];
  readonly #ends: Int32Array;
  readonly #divisionIds: Float64Array;
  #count = 0;
  #bytes = 0;

  constructor(rows: number) {
    this.#ends = new Int32Array(rows);
    this.#divisionIds = new Float64Array(rows);
  }

  /** The lines of the cut's admitted rows first..end-1, taken as one piece of the cut. */
  takeRun({ lines, lineEnds, facts }: WorkedCut, first: number, end: number): void {
    if (lines === undefined || lineEnds === undefined)
      throw new Error('a cut was worked without spool lines for an export split by division');
    const base = first === 0 ? 0 : (lineEnds[first - 1] as number);
    for (let k = first; k < end; k++) {
      this.#ends[this.#count] = this.#bytes + (lineEnds[k] as number) - base;
      this.#divisionIds[this.#count++] = facts[k * FACTS + FACT.divisionId] as number;
    }
    this.#bytes += (lineEnds[end - 1] as number) - base;
    this.#pieces.push(piece(lines, lineEnds, first, end));
  }

  done(): SpoolLines {
    return {
      lines: concat(this.#pieces),
      ends: this.#ends.subarray(0, this.#count),
      divisionIds: this.#divisionIds.subarray(0, this.#count),
    };
  }
}

/** The exported rows of a batch, gathered range by range; `rows`: at most how many. */
class ExportedRows {
  readonly csv: Buffer[] = [];
  readonly parquet: ParquetRun[] = [];
  readonly ids: Float64Array;
  readonly hashes: Buffer;
  count = 0;

  constructor(rows: number) {
    this.ids = new Float64Array(rows);
    this.hashes = Buffer.allocUnsafe(rows * 8);
  }

  /**
   * The records, fingerprints and lines of the cut's admitted rows first..end-1, the last rows
   * counted: the fingerprints are copied, the records and lines taken as pieces of the cut.
   */
  takeRun(cut: WorkedCut, first: number, end: number, spool: SpoolGathering | undefined): void {
    const at = (this.count - (end - first)) * 8;
    asBuffer(cut.hashes).copy(this.hashes, at, first * 8, end * 8);
    if (cut.csv !== undefined && cut.csvEnds !== undefined)
      this.csv.push(piece(cut.csv, cut.csvEnds, first, end));
    if (cut.parquet !== undefined) this.parquet.push({ cells: cut.parquet, first, end });
    spool?.takeRun(cut, first, end);
  }
}

/** Items first..end-1 of `bytes`, item k ending at ends[k]. */
function piece(bytes: Uint8Array, ends: Int32Array, first: number, end: number): Buffer {
  return asBuffer(bytes).subarray(first === 0 ? 0 : (ends[first - 1] as number), ends[end - 1] as number);
}

export interface WorkedBatch {
  readonly worked: WorkedRows;
  readonly rejected: readonly RejectedRow[];
  /**
   * The cuts whose last rows this batch took: once it is written (the outputs copy what they
   * keep), nothing reads them any more, and their buffers can serve later cuts.
   */
  readonly taken: readonly WorkedCut[];
}

export interface WorkedCutPipelineOptions {
  readonly divisions: DivisionDirectory;
  readonly groupMemory?: GroupMemory | undefined;
  /** Where the statistics are counted; default: here, within `groupMemory` (LocalStatistics). */
  readonly statistics?: ShiftStatistics | undefined;
  /** The export has a scope filter: its counts then say filtered_out. */
  readonly filtered: boolean;
  /** The export writes a workbook, whose sheet rows these threads render. */
  readonly sheetRows?: SheetRowsThreads | undefined;
  /** The export is split by division: the threads render each row's spool line. */
  readonly spoolLines?: boolean;
  /**
   * The rows' ids are known to be unique (a division's spool, whose rows were exported once):
   * no id is kept to find repeats.
   */
  readonly uniqueIds?: boolean;
}

export class WorkedCutPipeline {
  readonly #dedup = new DuplicateFilter();
  readonly #statistics: ShiftStatistics;
  readonly #filtered: boolean;
  readonly #sheetRows: SheetRowsThreads | undefined;
  readonly #spoolLines: boolean;
  readonly #uniqueIds: boolean;
  #lastDivisionName: string | undefined;
  #fetched = 0;
  #exported = 0;
  #rejected = 0;
  #flagged = 0;
  #outside = 0;
  #filteredOut = 0;

  constructor(options: WorkedCutPipelineOptions) {
    this.#statistics = options.statistics ?? new LocalStatistics(options.divisions, options.groupMemory);
    this.#filtered = options.filtered;
    this.#sheetRows = options.sheetRows;
    this.#spoolLines = options.spoolLines === true;
    this.#uniqueIds = options.uniqueIds === true;
  }

  /** Takes the ranges the reader handed out together, in order. */
  take(ranges: readonly RowRange<WorkedCut>[]): WorkedBatch {
    let rows = 0;
    for (const range of ranges) rows += range.to - range.from;
    const exported = new ExportedRows(rows);
    const rejected: RejectedRow[] = [];
    const sheet: SheetRowsPart[] | undefined = this.#sheetRows === undefined ? undefined : [];
    const taken: WorkedCut[] = [];
    const spool = this.#spoolLines ? new SpoolGathering(rows) : undefined;
    for (const range of ranges) {
      this.#takeRange(range, rejected, exported, sheet, spool);
      // A cut's ranges come in order: its last row is the last the cut is read for.
      if (range.to === range.batch.outcomes.length) taken.push(range.batch);
    }
    this.#statistics.endBatch();
    const { count } = exported;
    this.#exported += count;
    this.#rejected += rejected.length;
    return {
      worked: {
        count,
        csv: exported.csv,
        parquet: exported.parquet,
        ids: exported.ids.subarray(0, count),
        hashes: exported.hashes.subarray(0, count * 8),
        ...(sheet === undefined ? {} : { sheet }),
        ...(spool === undefined ? {} : { spool: spool.done() }),
      },
      rejected,
      taken,
    };
  }

  get counts(): ExportCounts {
    return {
      fetched: this.#fetched,
      exported: this.#exported,
      rejected: this.#rejected,
      duplicates: this.#dedup.duplicates,
      outside_window: this.#outside,
      flagged: this.#flagged,
      ...(this.#filtered ? { filtered_out: this.#filteredOut } : {}),
    };
  }

  /** The division name of the last exported row (undefined before the first): its summaries show it. */
  get lastDivisionName(): string | undefined {
    return this.#lastDivisionName;
  }

  /** Resolves once the statistics have counted all but a few batches (a thread of their own may lag). */
  caughtUp(): Promise<void> {
    return this.#statistics.caughtUp();
  }

  /** The summaries of every exported row so far. */
  finish(): Promise<ExportSummaries> {
    return this.#statistics.finish();
  }

  #takeRange(
    { batch: cut, from, to }: RowRange<WorkedCut>,
    rejected: RejectedRow[],
    exported: ExportedRows,
    sheet: SheetRowsPart[] | undefined,
    spool: SpoolGathering | undefined,
  ): void {
    const { outcomes, facts } = cut;
    // Where the range's first row stands among the cut's admitted and rejected rows.
    let admitted = 0;
    let refused = 0;
    for (let i = 0; i < from; i++) {
      if (outcomes[i] === ROW_ADMITTED) admitted++;
      else if (outcomes[i] === ROW_REJECTED) refused++;
    }
    const firstAdmitted = admitted;
    // Per admitted row of the range: 1 when exported.
    const keep = sheet === undefined ? undefined : new Uint8Array(admittedIn(outcomes, from, to));
    let kept = 0;
    // Exported rows that follow one another among the admitted (first to end - 1) are taken as one
    // run: their records, fingerprints and lines lie one after another in the cut's buffer.
    let first = -1;
    let end = -1;
    for (let i = from; i < to; i++) {
      const outcome = outcomes[i];
      if (outcome === ROW_REJECTED) rejected.push(cut.rejected[refused++] as RejectedRow);
      else if (outcome === ROW_OUTSIDE_WINDOW) this.#outside++;
      else if (outcome === ROW_FILTERED_OUT) this.#filteredOut++;
      else {
        const k = admitted++;
        const id = facts[k * FACTS + FACT.id] as number;
        if (!this.#uniqueIds && !this.#dedup.admitsId(id)) {
          if (first >= 0) exported.takeRun(cut, first, end, spool);
          first = -1;
          continue;
        }
        this.#aggregate(cut, k);
        if (keep !== undefined) {
          keep[k - firstAdmitted] = 1;
          kept++;
        }
        exported.ids[exported.count++] = id;
        if (first < 0) first = k;
        end = k + 1;
      }
    }
    if (first >= 0) exported.takeRun(cut, first, end, spool);
    if (end > 0)
      this.#lastDivisionName =
        textAt(cut.strings, cut.labels[(end - 1) * LABELS + LABEL.divisionName] as number) ?? '';
    this.#fetched += to - from;
    if (sheet !== undefined && keep !== undefined && kept > 0)
      sheet.push(this.#sheetRowsPart(cut, firstAdmitted, keep, kept, to === outcomes.length));
  }

  #sheetRowsPart(cut: WorkedCut, from: number, keep: Uint8Array, rows: number, last: boolean): SheetRowsPart {
    const threads = this.#sheetRows;
    const seq = cut.seq;
    if (threads === undefined || seq === undefined)
      throw new Error('sheet rows are asked of a cut no export thread keeps');
    const texts: CutTextLabels = {
      labels: cut.labels,
      stride: LABELS,
      offset: LABEL.sharedTexts,
      strings: cut.strings,
      from,
      keep,
      known: cut.knownTextIds,
    };
    return {
      rows,
      texts,
      render: (place) => threads.renderSheetRows({ ...place, seq, from, keep, last }),
      written: (rendered) => {
        if ('xml' in rendered && rendered.xml.byteLength > 0)
          threads.reuseSheetRows(seq, rendered.xml.buffer as ArrayBuffer);
      },
    };
  }

  #aggregate(cut: WorkedCut, k: number): void {
    this.#statistics.add(cut, k);
    if (cut.facts[k * FACTS + FACT.flagged] === 1) this.#flagged++;
  }
}

function admittedIn(outcomes: Uint8Array, from: number, to: number): number {
  let admitted = 0;
  for (let i = from; i < to; i++) if (outcomes[i] === ROW_ADMITTED) admitted++;
  return admitted;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function concat(pieces: readonly Buffer[]): Buffer {
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
}
