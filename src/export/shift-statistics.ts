// Where an export worked on export threads counts its statistics (aggregate.ts): the exported rows'
// facts, in report order, as the export's thread takes them (worked-cut-pipeline.ts). Either on the
// export's thread itself (LocalStatistics), or on a thread of their own (statistics-thread.ts), which
// gets each batch's rows packed as a StatisticsBatch: their facts and the six labels the statistics
// read, with each cut's label texts once. Both read a row through readAggregateShift, so
// both count the same.

import type { ExportSummaries } from '../domain/summary.js';
import { ShiftAggregator, type AggregateShift } from '../pipeline/aggregate.js';
import type { DivisionDirectory } from '../pipeline/enrich.js';
import type { GroupMemory } from '../pipeline/group-memory.js';
import { grown } from '../pipeline/grown-array.js';
import { FACT, FACTS, LABEL, LABELS, type WorkedCut } from './cut-work.js';

/** The exported rows' statistics, fed in report order. */
export interface ShiftStatistics {
  /** Adds admitted row `k` of a worked cut, exported (read now: the cut's buffer is reused later). */
  add(cut: WorkedCut, k: number): void;
  /** The batch's rows are all added. */
  endBatch(): void;
  /** Resolves once few enough batches wait to be counted; rejects if counting failed. */
  caughtUp(): Promise<void>;
  /** The summaries of every row added. */
  finish(): Promise<ExportSummaries>;
}

/** The labels the statistics read of a row: the first STAT_LABELS of a cut's LABELS. */
export const STAT_LABELS = LABEL.userDisplayName + 1;

export type MutableAggregateShift = { -readonly [K in keyof AggregateShift]: AggregateShift[K] };

export function emptyAggregateShift(): MutableAggregateShift {
  return {
    division_id: 0,
    division_name: '',
    region_id: 0,
    region_name: '',
    shop_id: 0,
    shop_sap: '',
    shop_locality: null,
    user_id: 0,
    user_login: '',
    user_display_name: '',
    duration: 0,
    start_location_match: null,
    finish_location_match: null,
    auto_finished: false,
    start_location_distance: null,
    finish_location_distance: null,
  };
}

/**
 * Fills `row` with the row whose facts start at facts[f] and labels at labels[l] (indexes into
 * `strings`); returns its business day. One object is refilled row after row: the statistics keep
 * no row.
 */
export function readAggregateShift(
  row: MutableAggregateShift,
  facts: Float64Array,
  f: number,
  labels: Int32Array,
  l: number,
  strings: readonly string[],
): number {
  row.division_id = facts[f + FACT.divisionId] as number;
  row.region_id = facts[f + FACT.regionId] as number;
  row.shop_id = facts[f + FACT.shopId] as number;
  row.user_id = facts[f + FACT.userId] as number;
  row.duration = facts[f + FACT.duration] as number;
  row.start_location_match = match(facts[f + FACT.startMatch] as number);
  row.finish_location_match = match(facts[f + FACT.finishMatch] as number);
  row.start_location_distance = distance(facts[f + FACT.startDistance] as number);
  row.finish_location_distance = distance(facts[f + FACT.finishDistance] as number);
  row.auto_finished = facts[f + FACT.autoFinished] === 1;
  row.division_name = textAt(strings, labels[l + LABEL.divisionName] as number) ?? '';
  row.region_name = textAt(strings, labels[l + LABEL.regionName] as number) ?? '';
  row.shop_sap = textAt(strings, labels[l + LABEL.shopSap] as number) ?? '';
  row.shop_locality = textAt(strings, labels[l + LABEL.shopLocality] as number);
  row.user_login = textAt(strings, labels[l + LABEL.userLogin] as number) ?? '';
  row.user_display_name = textAt(strings, labels[l + LABEL.userDisplayName] as number) ?? '';
  return facts[f + FACT.businessDay] as number;
}

/** Label text `index` of `strings`; -1: null. */
export function textAt(strings: readonly string[], index: number): string | null {
  return index < 0 ? null : (strings[index] as string);
}

function match(fact: number): boolean | null {
  return fact < 0 ? null : fact === 1;
}

function distance(fact: number): number | null {
  return Number.isNaN(fact) ? null : fact;
}

/** The statistics counted on the export's thread, as each row is added. */
export class LocalStatistics implements ShiftStatistics {
  readonly #aggregator: ShiftAggregator;
  readonly #row = emptyAggregateShift();

  constructor(divisions: DivisionDirectory, memory: GroupMemory | undefined) {
    this.#aggregator = new ShiftAggregator(divisions, memory);
  }

  add({ facts, labels, strings }: WorkedCut, k: number): void {
    const businessDay = readAggregateShift(this.#row, facts, k * FACTS, labels, k * LABELS, strings);
    this.#aggregator.addShift(this.#row, businessDay);
  }

  endBatch(): void {}

  caughtUp(): Promise<void> {
    return Promise.resolve();
  }

  finish(): Promise<ExportSummaries> {
    return Promise.resolve(this.#aggregator.finish());
  }
}

/**
 * A batch's exported rows as the statistics' thread gets them: FACTS numbers and STAT_LABELS label
 * indexes a row (into `strings`, -1: null), in report order. The arrays are the batch's own: they
 * move to the thread.
 */
export interface StatisticsBatch {
  readonly rows: number;
  readonly facts: Float64Array;
  readonly labels: Int32Array;
  readonly strings: readonly string[];
}

/** Adds a packed batch's rows to `aggregator`, one after another, through the one object `row`. */
export function addBatch(
  aggregator: ShiftAggregator,
  row: MutableAggregateShift,
  batch: StatisticsBatch,
): void {
  const { rows, facts, labels, strings } = batch;
  for (let r = 0; r < rows; r++) {
    const businessDay = readAggregateShift(row, facts, r * FACTS, labels, r * STAT_LABELS, strings);
    aggregator.addShift(row, businessDay);
  }
}

/** Packs the rows of a batch, row by row, into a StatisticsBatch. */
export class StatisticsBatchPacker {
  #facts = new Float64Array(FACTS * 1_024);
  #labels = new Int32Array(STAT_LABELS * 1_024);
  #strings: string[] = [];
  #rows = 0;
  /** The cut whose texts `#index` maps, and, per text of it, its index in `#strings` (-1: not yet there). */
  #cut: WorkedCut | undefined;
  #index = new Int32Array(1_024);

  get rows(): number {
    return this.#rows;
  }

  add(cut: WorkedCut, k: number): void {
    if (cut !== this.#cut) this.#mapTextsOf(cut);
    if (FACTS * (this.#rows + 1) > this.#facts.length) {
      this.#facts = grown(this.#facts, FACTS);
      this.#labels = grown(this.#labels, STAT_LABELS);
    }
    const row = this.#rows++;
    const facts = cut.facts;
    const from = k * FACTS;
    const to = row * FACTS;
    for (let i = 0; i < FACTS; i++) this.#facts[to + i] = facts[from + i] as number;
    const labels = cut.labels;
    const index = this.#index;
    for (let i = 0; i < STAT_LABELS; i++) {
      const text = labels[k * LABELS + i] as number;
      let at = -1;
      if (text >= 0) {
        at = index[text] as number;
        if (at < 0) {
          at = this.#strings.push(cut.strings[text] as string) - 1;
          index[text] = at;
        }
      }
      this.#labels[row * STAT_LABELS + i] = at;
    }
  }

  /** The rows packed since the last take, in arrays of their own; the packer starts again empty. */
  take(): StatisticsBatch {
    const rows = this.#rows;
    const batch = {
      rows,
      facts: this.#facts.slice(0, rows * FACTS),
      labels: this.#labels.slice(0, rows * STAT_LABELS),
      strings: this.#strings,
    };
    this.#rows = 0;
    this.#strings = [];
    this.#cut = undefined;
    return batch;
  }

  #mapTextsOf(cut: WorkedCut): void {
    this.#cut = cut;
    const texts = cut.strings.length;
    if (this.#index.length < texts) this.#index = new Int32Array(texts * 2);
    this.#index.fill(-1, 0, texts);
  }
}
