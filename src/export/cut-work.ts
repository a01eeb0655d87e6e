// Everything an export does to one row that needs no other row, done to a whole cut of the report
// at once, on whichever thread parses it (shift-threads.ts): parse, validate, the scope filter,
// localise, the window, enrich, and then for each row that passed: its CSV record, its Parquet
// values, its fingerprint for change tracking, and the compact facts the statistics need. What needs the whole report —
// duplicates, statistics, report order, the files — stays on the export's thread
// (worked-cut-pipeline.ts), which reads only these typed arrays and the rendered bytes.
//
// Every output is a function of the cut's bytes and the setup alone, so the export is the same
// bytes whichever thread worked which cut (test/export/export-threads.int.test.ts).

import type { Period } from '../domain/period.js';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { RowFilter } from '../domain/row-filter.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import { RowHasher } from '../changes/row-hash.js';
import { enrichShift, type DivisionDirectory } from '../pipeline/enrich.js';
import { localiseShift } from '../pipeline/localise.js';
import { ScopeFilter } from '../pipeline/scope-filter.js';
import { isRejected, validateShift } from '../pipeline/validate.js';
import { BusinessDayWindow } from '../pipeline/window.js';
import { CsvRecordEncoder, type CsvTableOptions } from '../render/csv/csv-table-writer.js';
import {
  ParquetCellEncoder,
  type ParquetCells,
  type ParquetCellsSize,
} from '../render/parquet/parquet-cells.js';
import { idsOf } from '../wfm/resume-position.js';
import { parseCut, type ScannedCut } from '../wfm/scanned-cut.js';
import {
  SHARED_TEXT_COLUMN_NAMES,
  type KnownIds,
  type KnownTextIds,
  type TextEntry,
} from '../render/xlsx/shared-texts.js';
import { sharedTextOf, type RowBuffers } from '../render/xlsx/shift-rows-xml.js';
import { SpoolLineEncoder, spoolRecords } from './division-spool.js';
import { SpareBuffers } from './spare-buffers.js';

/** What a thread works cuts with: the same on every thread. */
export interface CutWorkSetup {
  readonly period: Period;
  readonly divisions: DivisionDirectory;
  readonly filter: RowFilter | undefined;
  /** shifts.csv's options; none: no CSV records are rendered. */
  readonly csv: CsvTableOptions | undefined;
  /** The export writes a workbook: each cut's admitted records are kept for its sheet rows (sheet-rows-work.ts). */
  readonly sheetRows?: boolean;
  /** The export is split by division: each admitted record's spool line is rendered (division-spool.ts). */
  readonly spoolLines?: boolean;
  /** The export writes shifts.parquet: each admitted record's Parquet values are converted (parquet-cells.ts). */
  readonly parquet?: boolean;
  /**
   * Split by division: what each division's files need of its spool's lines, worked as cuts of
   * their own (workSpoolLines) when the division is written (division-split.ts).
   */
  readonly division?: DivisionCutSetup | undefined;
}

/** What a division's spool cuts are rendered into: its shifts.csv, Shifts sheet, shifts.parquet. */
export interface DivisionCutSetup {
  readonly csv: CsvTableOptions | undefined;
  readonly sheetRows: boolean;
  readonly parquet: boolean;
}

/** The encoders of one kind of cut: none where the export does not render that output. */
interface CutEncoders {
  readonly csv: CsvRecordEncoder<ShiftRecord> | undefined;
  readonly lines: SpoolLineEncoder | undefined;
  readonly parquet: ParquetCellEncoder<ShiftRecord> | undefined;
  /** The rows' sheet rows are rendered: their shared texts are labelled. */
  readonly sheetTexts: boolean;
}

function cutEncoders(
  csv: CsvTableOptions | undefined,
  lines: boolean,
  parquet: boolean,
  sheetTexts: boolean,
): CutEncoders {
  return {
    csv: csv === undefined ? undefined : new CsvRecordEncoder(SHIFT_COLUMNS, csv),
    lines: lines ? new SpoolLineEncoder() : undefined,
    parquet: parquet ? new ParquetCellEncoder(SHIFT_COLUMNS) : undefined,
    sheetTexts,
  };
}

/** What became of each row of a cut. */
export const ROW_ADMITTED = 0;
export const ROW_REJECTED = 1;
export const ROW_OUTSIDE_WINDOW = 2;
export const ROW_FILTERED_OUT = 3;

/** The facts of an admitted row, FACTS numbers each, in this order. */
export const FACT = {
  id: 0,
  businessDay: 1,
  divisionId: 2,
  regionId: 3,
  shopId: 4,
  userId: 5,
  duration: 6,
  /** 1 true, 0 false, -1 null. */
  startMatch: 7,
  finishMatch: 8,
  /** NaN for null. */
  startDistance: 9,
  finishDistance: 10,
  autoFinished: 11,
  flagged: 12,
} as const;
export const FACTS = 13;

/** The labels of an admitted row, LABELS string indexes each (-1: null), in this order. */
export const LABEL = {
  divisionName: 0,
  regionName: 1,
  shopSap: 2,
  shopLocality: 3,
  userLogin: 4,
  userDisplayName: 5,
  /**
   * Then, with a workbook, the texts of its cells that go into the shared-strings table, one per
   * SHARED_TEXT_SHIFT_COLUMNS column, as the cells hold them (shift-rows-xml.ts, sharedTextOf);
   * without one, -1.
   */
  sharedTexts: 6,
} as const;
export const LABELS = LABEL.sharedTexts + SHARED_TEXT_COLUMN_NAMES.length;

/** A worked cut, with what its thread keeps to render its sheet rows (sheet-rows-work.ts). */
export interface KeptCut {
  readonly worked: WorkedCut;
  /** The records of its admitted rows, in order. */
  readonly records: readonly ShiftRecord[];
  /**
   * Per admitted row, the labels of its shared texts (LABEL.sharedTexts on): the thread keeps them
   * after the cut's buffer has gone to the export's thread, to find each cell's shared index.
   */
  readonly sharedLabels: Int32Array;
  /** Labelled by a KnownTextIds: each label's entry, which learns the index it is given. */
  readonly entries?: readonly TextEntry[] | undefined;
}

export interface WorkedCut {
  /**
   * The one buffer every array below is a view of: it moves between threads as one, and serves a
   * later cut once the export's thread has taken this one's rows (CutWorker.reuse).
   */
  readonly buffer: ArrayBuffer;
  /** Every row's id where readable (a safe integer), else NaN: the reader's resume position. */
  readonly ids: Float64Array;
  /** Every row's ROW_* outcome. */
  readonly outcomes: Uint8Array;
  /** The rejected rows, in order. */
  readonly rejected: readonly RejectedRow[];
  /** Of the admitted rows, in order: */
  readonly facts: Float64Array;
  readonly labels: Int32Array;
  /** The distinct label texts of the cut. */
  readonly strings: readonly string[];
  /**
   * Per label text, the shared-strings index its thread remembers being given for it (KnownTextIds),
   * or UNSEEN; none when the thread keeps no such memory (split by division, no workbook).
   */
  readonly knownTextIds?: KnownIds;
  /** 8 bytes each: the fingerprint change tracking keeps (row-hash.ts). */
  readonly hashes: Uint8Array;
  /** Their CSV records one after another, and where each ends; none without a CSV. */
  readonly csv: Uint8Array | undefined;
  readonly csvEnds: Int32Array | undefined;
  /** Their division spool's lines one after another, and where each ends; none unless split by division. */
  readonly lines: Uint8Array | undefined;
  readonly lineEnds: Int32Array | undefined;
  /** Their Parquet values; none without shifts.parquet. */
  readonly parquet?: ParquetCells | undefined;
  /** The cut's number as sent to the export threads, by which its thread keeps its records (sheet-rows-work.ts). */
  readonly seq?: number;
}

/** A worked cut as an export thread answers it: with what that thread holds, for the budget. */
export interface ThreadAnswer {
  readonly worked: WorkedCut;
  /** The thread's V8 heap in use plus its external memory, in bytes, once the cut was worked. */
  readonly threadBytes: number;
}

const hasher = new RowHasher<ShiftRecord>(SHIFT_COLUMNS);

/**
 * Buffers a worker keeps for its next cuts: about as many as are on their way back from the
 * export's thread while it works (two cuts a thread are under way, shift-threads.ts), and the
 * buffers of sheet rows it rendered, which come back the same way.
 */
const SPARE_BUFFERS = 4;

/** Works cuts on one thread; the encoder and the stages are made once. */
export class CutWorker {
  readonly #setup: CutWorkSetup;
  /** For the report's cuts, and for a division's spool cuts (none unless split by division). */
  readonly #report: CutEncoders;
  readonly #division: CutEncoders | undefined;
  readonly #spare = new SpareBuffers(SPARE_BUFFERS);
  /** Each row's outcome while a cut is worked, copied into its buffer at the end. */
  #outcomes = new Uint8Array(1024);
  /** Where each CSV record ends while a cut is worked, copied into its buffer at the end. */
  #csvEnds = new Int32Array(1024);
  /** Where each spool line ends while a cut is worked, copied into its buffer at the end. */
  #lineEnds = new Int32Array(1024);

  constructor(setup: CutWorkSetup) {
    this.#setup = setup;
    this.#report = cutEncoders(
      setup.csv,
      setup.spoolLines === true,
      setup.parquet === true,
      setup.sheetRows === true,
    );
    const division = setup.division;
    this.#division = division && cutEncoders(division.csv, false, division.parquet, division.sheetRows);
  }

  work(cut: ScannedCut): WorkedCut {
    return this.workKeepingRecords(cut).worked;
  }

  /**
   * The worked cut, the records of its admitted rows, in order, and their shared texts' labels;
   * with `known`, each label text's remembered index too (WorkedCut.knownTextIds).
   */
  workKeepingRecords(cut: ScannedCut, known?: KnownTextIds): KeptCut {
    const rows = parseCut(cut);
    const texts = rows.texts;
    const n = rows.length;
    if (this.#outcomes.length < n) this.#outcomes = new Uint8Array(n * 2);
    const outcomes = this.#outcomes;
    const rejected: RejectedRow[] = [];
    const records: ShiftRecord[] = [];
    // Per cut, so that what a row meets never depends on which thread had which cuts before.
    const window = new BusinessDayWindow(this.#setup.period);
    const scope = this.#setup.filter === undefined ? undefined : new ScopeFilter(this.#setup.filter);
    for (let i = 0; i < n; i++) {
      const valid = validateShift(rows[i], texts, i);
      if (isRejected(valid)) {
        outcomes[i] = ROW_REJECTED;
        rejected.push(valid);
        continue;
      }
      if (scope !== undefined && !scope.admits(valid.shift)) {
        outcomes[i] = ROW_FILTERED_OUT;
        continue;
      }
      const localised = localiseShift(valid);
      if (!window.admits(localised)) {
        outcomes[i] = ROW_OUTSIDE_WINDOW;
        continue;
      }
      outcomes[i] = ROW_ADMITTED;
      records.push(enrichShift(localised, this.#setup.divisions));
    }
    texts?.release();
    return this.#render(records, rejected, this.#report, n, (ids) => idsOf(rows, ids), known);
  }

  /**
   * A run of a division's spool lines (division-spool.ts: each a record already validated,
   * localised and enriched, exported once) worked into the same shape as a report's cut, with
   * the division's outputs: every row admitted, none rejected.
   */
  workSpoolLines(cut: { readonly bytes: Uint8Array; readonly start: number; readonly end: number }): KeptCut {
    const encoders = this.#division;
    if (encoders === undefined) throw new Error('these threads work no division spool cuts');
    const records = spoolRecords(
      Buffer.from(cut.bytes.buffer, cut.bytes.byteOffset, cut.bytes.byteLength).toString(
        'utf8',
        cut.start,
        cut.end,
      ),
      this.#setup.divisions,
    );
    const n = records.length;
    if (this.#outcomes.length < n) this.#outcomes = new Uint8Array(n * 2);
    this.#outcomes.fill(ROW_ADMITTED, 0, n);
    return this.#render(records, [], encoders, n, (ids) => {
      for (let k = 0; k < n; k++) ids[k] = (records[k] as ShiftRecord).shift.id;
    });
  }

  /** The worked cut of `n` rows whose admitted ones are `records`, rendered with `encoders`. */
  #render(
    records: readonly ShiftRecord[],
    rejected: readonly RejectedRow[],
    encoders: CutEncoders,
    n: number,
    fillIds: (ids: Float64Array) => void,
    known?: KnownTextIds,
  ): KeptCut {
    const outcomes = this.#outcomes;
    if (this.#csvEnds.length < records.length) this.#csvEnds = new Int32Array(records.length * 2);
    // In the encoder's scratch until the cut's buffer is carved to their size; copied there.
    const csv = encoders.csv?.encodeAll(records, this.#csvEnds);
    if (this.#lineEnds.length < records.length) this.#lineEnds = new Int32Array(records.length * 2);
    const lines = encoders.lines?.encodeAll(records, this.#lineEnds);
    const parquet = encoders.parquet?.encodeAll(records);
    const arrays = carve(this.#spare, n, records.length, csv?.length, lines?.length, parquet);
    fillIds(arrays.ids);
    arrays.outcomes.set(outcomes.subarray(0, n));
    const { strings, sharedLabels, entries, knownTextIds } = this.#fill(
      records,
      arrays,
      encoders.sheetTexts,
      known,
    );
    if (csv !== undefined) {
      arrays.csv?.set(csv);
      arrays.csvEnds?.set(this.#csvEnds.subarray(0, records.length));
    }
    if (lines !== undefined) {
      arrays.lines?.set(lines);
      arrays.lineEnds?.set(this.#lineEnds.subarray(0, records.length));
    }
    if (arrays.parquet !== undefined) encoders.parquet?.copyInto(arrays.parquet);
    return {
      worked: { ...arrays, rejected, strings, ...(knownTextIds === undefined ? {} : { knownTextIds }) },
      records,
      sharedLabels,
      entries,
    };
  }

  /**
   * The buffer of a worked cut whose rows the export's thread has taken (written, counted,
   * fingerprinted): nothing reads its arrays any more, and a later cut is carved from it.
   */
  reuse(buffer: ArrayBuffer): void {
    this.#spare.give(buffer);
  }

  /** Where sheet rows' buffers come from: the same spare buffers, which their buffers join again. */
  get rowBuffers(): RowBuffers {
    return this.#spare;
  }

  /**
   * The admitted rows' facts, labels and fingerprints (with `sheetTexts`, their shared texts'
   * labels too, also kept apart: KeptCut.sharedLabels); returns the label texts.
   */
  #fill(
    records: readonly ShiftRecord[],
    { facts, labels, hashes }: CutArrays,
    sheetTexts: boolean,
    known: KnownTextIds | undefined,
  ): {
    strings: string[];
    sharedLabels: Int32Array;
    entries?: readonly TextEntry[];
    knownTextIds?: KnownIds;
  } {
    let strings: string[] = [];
    const shared = SHARED_TEXT_COLUMN_NAMES.length;
    const sharedLabels = new Int32Array(sheetTexts ? records.length * shared : 0);
    const indexes = new Map<string, number>();
    known?.startCut();
    const label = (text: string | null): number => {
      if (text === null) return -1;
      if (known !== undefined) return known.label(text);
      let index = indexes.get(text);
      if (index === undefined) {
        index = strings.push(text) - 1;
        indexes.set(text, index);
      }
      return index;
    };
    for (let k = 0; k < records.length; k++) {
      const record = records[k] as ShiftRecord;
      const shift = record.shift;
      const f = k * FACTS;
      facts[f + FACT.id] = shift.id;
      facts[f + FACT.businessDay] = record.businessDay;
      facts[f + FACT.divisionId] = shift.division_id;
      facts[f + FACT.regionId] = shift.region_id;
      facts[f + FACT.shopId] = shift.shop_id;
      facts[f + FACT.userId] = shift.user_id;
      facts[f + FACT.duration] = shift.duration;
      facts[f + FACT.startMatch] = matchFact(shift.start_location_match);
      facts[f + FACT.finishMatch] = matchFact(shift.finish_location_match);
      facts[f + FACT.startDistance] = shift.start_location_distance ?? Number.NaN;
      facts[f + FACT.finishDistance] = shift.finish_location_distance ?? Number.NaN;
      facts[f + FACT.autoFinished] = shift.auto_finished ? 1 : 0;
      facts[f + FACT.flagged] = record.qualityFlags === '' ? 0 : 1;
      const l = k * LABELS;
      labels[l + LABEL.divisionName] = label(shift.division_name);
      labels[l + LABEL.regionName] = label(shift.region_name);
      labels[l + LABEL.shopSap] = label(shift.shop_sap);
      labels[l + LABEL.shopLocality] = label(shift.shop_locality);
      labels[l + LABEL.userLogin] = label(shift.user_login);
      labels[l + LABEL.userDisplayName] = label(shift.user_display_name);
      for (let c = 0; c < shared; c++) {
        const text = sheetTexts ? label(sharedTextOf(record, c)) : -1;
        labels[l + LABEL.sharedTexts + c] = text;
        if (sheetTexts) sharedLabels[k * shared + c] = text;
      }
      hasher.hashInto(record, hashes, k * 8);
    }
    if (known === undefined) return { strings, sharedLabels };
    const cut = known.endCut();
    strings = cut.strings;
    return { strings, sharedLabels, entries: cut.entries, knownTextIds: cut.known };
  }
}

/** The typed arrays of a worked cut, all views of its one buffer. */
type CutArrays = Pick<
  WorkedCut,
  'buffer' | 'ids' | 'outcomes' | 'facts' | 'labels' | 'csvEnds' | 'lineEnds' | 'parquet'
> & {
  readonly hashes: Buffer;
  readonly csv: Buffer | undefined;
  readonly lines: Buffer | undefined;
};

/**
 * The arrays of a cut of `rows` rows, `admitted` of them admitted, with these CSV records, spool
 * lines and Parquet values (none: not rendered), carved from one spare buffer: 8-byte numbers
 * first, then 4-byte, then bytes, so that each array starts aligned.
 */
function carve(
  spare: SpareBuffers,
  rows: number,
  admitted: number,
  csvBytes: number | undefined,
  lineBytes: number | undefined,
  parquet: ParquetCellsSize | undefined,
): CutArrays {
  const csvEndsLength = csvBytes === undefined ? 0 : admitted;
  const lineEndsLength = lineBytes === undefined ? 0 : admitted;
  const bytes =
    8 * (rows + admitted * FACTS) +
    4 * (admitted * LABELS + csvEndsLength + lineEndsLength) +
    rows +
    admitted * 8 +
    (csvBytes ?? 0) +
    (lineBytes ?? 0) +
    (parquet === undefined
      ? 0
      : 8 * (parquet.numbers + parquet.ints) +
        4 * (parquet.textIndexes + parquet.textEnds) +
        parquet.nulls +
        parquet.textBytes);
  const buffer = spare.take(bytes);
  let at = 0;
  const next = (length: number, size: number): number => {
    const start = at;
    at += length * size;
    return start;
  };
  const ids = new Float64Array(buffer, next(rows, 8), rows);
  const facts = new Float64Array(buffer, next(admitted * FACTS, 8), admitted * FACTS);
  const numbers = parquet && new Float64Array(buffer, next(parquet.numbers, 8), parquet.numbers);
  const ints = parquet && new BigInt64Array(buffer, next(parquet.ints, 8), parquet.ints);
  const labels = new Int32Array(buffer, next(admitted * LABELS, 4), admitted * LABELS);
  const csvEnds = csvBytes === undefined ? undefined : new Int32Array(buffer, next(admitted, 4), admitted);
  const lineEnds = lineBytes === undefined ? undefined : new Int32Array(buffer, next(admitted, 4), admitted);
  const textIndexes = parquet && new Int32Array(buffer, next(parquet.textIndexes, 4), parquet.textIndexes);
  const textEnds = parquet && new Int32Array(buffer, next(parquet.textEnds, 4), parquet.textEnds);
  const outcomes = new Uint8Array(buffer, next(rows, 1), rows);
  const hashes = Buffer.from(buffer, next(admitted * 8, 1), admitted * 8);
  const csv = csvBytes === undefined ? undefined : Buffer.from(buffer, next(csvBytes, 1), csvBytes);
  const lines = lineBytes === undefined ? undefined : Buffer.from(buffer, next(lineBytes, 1), lineBytes);
  const cells: ParquetCells | undefined =
    parquet === undefined ||
    numbers === undefined ||
    ints === undefined ||
    textIndexes === undefined ||
    textEnds === undefined
      ? undefined
      : {
          rows: admitted,
          numbers,
          ints,
          textIndexes,
          textEnds,
          nulls: new Uint8Array(buffer, next(parquet.nulls, 1), parquet.nulls),
          text: new Uint8Array(buffer, next(parquet.textBytes, 1), parquet.textBytes),
        };
  return { buffer, ids, outcomes, facts, labels, hashes, csvEnds, csv, lineEnds, lines, parquet: cells };
}

function matchFact(match: boolean | null): number {
  return match === null ? -1 : match ? 1 : 0;
}
