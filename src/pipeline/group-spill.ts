// Groups past the memory budget: when the user and shop groups of an export would hold more than
// EXPORT_MEMORY_MB, their state so far (labels, counters, distances as (value, times) pairs) is
// written to a temp file as a run sorted by id, and the groups start again empty. At the end the
// runs are merged by id: counters add up, the distances of a group come together for its exact
// MEDIAN and PERCENTILE.INC, and its labels are those of its latest run (so of its latest row, as
// in memory). The summaries, too many to hold, go through an external sort by name (runs of
// sorted summaries, merged while the table is written), read back as often as a writer needs.
// An export that stays within the budget never writes here and holds its summaries as arrays.

import type { GroupStats, SummaryRows } from '../domain/summary.js';
import type { TempFolder } from '../temp-file.js';
import { percentileInc } from './distance-distribution.js';
import type { GroupAccumulator } from './group-accumulator.js';
import { compareNameThenId, sortByNameThenId } from './name-order.js';
import { RecordBuilder, RunFile, type RecordReader } from './record-runs.js';

export interface GroupMemory {
  /** Bytes the user and shop groups, and then their summaries, may hold (EXPORT_MEMORY_MB). */
  readonly budgetBytes: number;
  /** Where runs go; the caller disposes of it once the summaries are written. */
  readonly temp: TempFolder;
}

/** Memory of a group without its labels: object, accumulator, map entry, a slab block (docs/performance.md). */
export const GROUP_BYTES = 370;
/** Memory of a summary without its labels: object, statistics and its sort entry (docs/performance.md). */
export const SUMMARY_BYTES = 330;

/** Bytes the label texts add (two a character: most names here are not Latin-1). */
export function labelBytes(labels: readonly (string | null)[]): number {
  let bytes = 0;
  for (const label of labels) bytes += label === null ? 0 : 2 * label.length;
  return bytes;
}

/** How one level of groups (users, shops) is labelled and summarised. */
export interface SpillLevel<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> {
  /** Goes into the temp files' names. */
  readonly label: string;
  /** How many labels labels() gives. */
  readonly labelCount: number;
  labels(group: G): readonly (string | null)[];
  summaryLabels(summary: S): readonly (string | null)[];
  summary(id: number, labels: readonly (string | null)[], stats: GroupStats): S;
  id(summary: S): number;
  /** The name the table is sorted by. */
  name(summary: S): string;
}

const COUNTERS = 10;

/** One group's partial states, merged: counters, distances as (value, times), latest labels. */
class MergedGroup {
  readonly counters = new Float64Array(COUNTERS);
  readonly starts = new DistancePairs();
  readonly finishes = new DistancePairs();
  labels: (string | null)[] = [];

  clear(): void {
    this.counters.fill(0);
    this.starts.clear();
    this.finishes.clear();
  }

  /** Adds the partial state the reader is at (after its id); its labels replace the earlier ones. */
  read(reader: RecordReader, labelCount: number): void {
    const labels: (string | null)[] = [];
    for (let i = 0; i < labelCount; i++) labels.push(reader.text());
    this.labels = labels;
    for (let i = 0; i < COUNTERS; i++) this.counters[i]! += reader.number();
    this.starts.read(reader);
    this.finishes.read(reader);
  }

  stats(): GroupStats {
    const c = this.counters;
    const [startDistanceMedian, startDistanceP90] = this.starts.medianAndP90();
    const [finishDistanceMedian, finishDistanceP90] = this.finishes.medianAndP90();
    return {
      shifts: c[0]!,
      durationSeconds: c[1]!,
      startChecked: c[2]!,
      startMatched: c[3]!,
      finishChecked: c[4]!,
      finishMatched: c[5]!,
      bothChecked: c[6]!,
      bothMatched: c[7]!,
      noLocation: c[8]!,
      startDistanceMedian,
      startDistanceP90,
      finishDistanceMedian,
      finishDistanceP90,
      autoFinished: c[9]!,
    };
  }
}

class DistancePairs {
  values: number[] = [];
  times: number[] = [];

  clear(): void {
    this.values.length = 0;
    this.times.length = 0;
  }

  read(reader: RecordReader): void {
    const pairs = reader.number();
    for (let i = 0; i < pairs; i++) {
      this.values.push(reader.number());
      this.times.push(reader.number());
    }
  }

  /** Excel MEDIAN and PERCENTILE.INC(…, 0.9), as GroupAccumulator computes them. */
  medianAndP90(): [number | null, number | null] {
    const { values, times } = this;
    const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
    let total = 0;
    for (const t of times) total += t;
    const valueAt = (rank: number): number => {
      let seen = 0;
      for (const i of order) {
        seen += times[i]!;
        if (rank < seen) return values[i]!;
      }
      throw new RangeError(`rank ${rank} is beyond ${total} values`);
    };
    return [percentileInc(total, 1, 2, valueAt), percentileInc(total, 9, 10, valueAt)];
  }
}

/** The spilled runs of one level, and the merge of them into its summary table. */
export class SpilledGroups<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> {
  readonly #level: SpillLevel<G, S>;
  readonly #memory: GroupMemory;
  readonly #record = new RecordBuilder();
  #runs: RunFile | null = null;

  constructor(level: SpillLevel<G, S>, memory: GroupMemory) {
    this.#level = level;
    this.#memory = memory;
  }

  get spilled(): boolean {
    return this.#runs !== null;
  }

  /** Writes the groups as a run sorted by id, releases them and empties the map. */
  spill(groups: Map<number, G>): void {
    if (groups.size === 0) return;
    const runs = (this.#runs ??= new RunFile(this.#memory.temp, `groups-${this.#level.label}`));
    const ids = Float64Array.from(groups.keys()).sort();
    const record = this.#record;
    for (const id of ids) {
      const group = groups.get(id)!;
      record.clear();
      record.number(id);
      for (const label of this.#level.labels(group)) record.text(label);
      group.stats.writePartial(record);
      group.stats.release();
      runs.append(record);
    }
    runs.endRun();
    groups.clear();
  }

  /** The level's summary table, sorted by name then id: the runs and `remaining` merged by id. */
  summaries(remaining: Map<number, G>): SummaryRows<S> {
    this.spill(remaining);
    const runs = this.#runs;
    const sorter = new SummarySorter(this.#level, this.#memory);
    if (runs === null) return sorter.finish();
    const labelCount = this.#level.labelCount;
    const heads = runs.runs.map((run) => ({ reader: runs.reader(run), id: 0, done: false }));
    const advance = (head: (typeof heads)[number]): void => {
      head.done = !head.reader.next();
      if (!head.done) head.id = head.reader.number();
    };
    heads.forEach(advance);
    const merged = new MergedGroup();
    for (;;) {
      let id = Number.POSITIVE_INFINITY;
      for (const head of heads) if (!head.done && head.id < id) id = head.id;
      if (id === Number.POSITIVE_INFINITY) break;
      merged.clear();
      // Runs in the order they were written: the latest labels come last.
      for (const head of heads) {
        if (head.done || head.id !== id) continue;
        merged.read(head.reader, labelCount);
        advance(head);
      }
      sorter.add(this.#level.summary(id, merged.labels, merged.stats()));
    }
    return sorter.finish();
  }
}

/** The numbers of a GroupStats in the order a run stores them; a null distance is stored as NaN. */
const STATS_FIELDS = [
  'shifts',
  'durationSeconds',
  'startChecked',
  'startMatched',
  'finishChecked',
  'finishMatched',
  'bothChecked',
  'bothMatched',
  'noLocation',
  'startDistanceMedian',
  'startDistanceP90',
  'finishDistanceMedian',
  'finishDistanceP90',
  'autoFinished',
] as const satisfies readonly (keyof GroupStats)[];

function writeStats(out: RecordBuilder, stats: GroupStats): void {
  for (const field of STATS_FIELDS) out.number(stats[field] ?? Number.NaN);
}

function readStats(reader: RecordReader): GroupStats {
  const stats: Record<string, number | null> = {};
  for (const field of STATS_FIELDS) {
    const value = reader.number();
    stats[field] = Number.isNaN(value) ? null : value;
  }
  return stats as unknown as GroupStats;
}

/**
 * Summaries in, the table sorted by name then id out: an array while they fit the budget, else
 * sorted runs in a temp file merged whenever the table is read.
 */
class SummarySorter<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> {
  readonly #level: SpillLevel<G, S>;
  readonly #memory: GroupMemory;
  readonly #record = new RecordBuilder();
  #buffer: S[] = [];
  #bufferBytes = 0;
  #count = 0;
  #runs: RunFile | null = null;

  constructor(level: SpillLevel<G, S>, memory: GroupMemory) {
    this.#level = level;
    this.#memory = memory;
  }

  add(summary: S): void {
    this.#buffer.push(summary);
    this.#count++;
    this.#bufferBytes += SUMMARY_BYTES + labelBytes(this.#level.summaryLabels(summary));
    if (this.#bufferBytes > this.#memory.budgetBytes) this.#writeRun();
  }

  finish(): SummaryRows<S> {
    if (this.#runs === null) return this.#sorted();
    this.#writeRun();
    return new SpilledSummaries(this.#level, this.#runs, this.#count);
  }

  #sorted(): S[] {
    const level = this.#level;
    return sortByNameThenId(
      this.#buffer,
      (s) => level.name(s),
      (s) => level.id(s),
    );
  }

  #writeRun(): void {
    const runs = (this.#runs ??= new RunFile(this.#memory.temp, `summaries-${this.#level.label}`));
    const record = this.#record;
    for (const summary of this.#sorted()) {
      record.clear();
      record.number(this.#level.id(summary));
      for (const label of this.#level.summaryLabels(summary)) record.text(label);
      writeStats(record, summary.stats);
      runs.append(record);
    }
    runs.endRun();
    this.#buffer = [];
    this.#bufferBytes = 0;
  }
}

/** A summary table read back from sorted runs, merged by name then id each time it is iterated. */
class SpilledSummaries<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> implements SummaryRows<S> {
  readonly #level: SpillLevel<G, S>;
  readonly #runs: RunFile;
  readonly length: number;

  constructor(level: SpillLevel<G, S>, runs: RunFile, length: number) {
    this.#level = level;
    this.#runs = runs;
    this.length = length;
  }

  *[Symbol.iterator](): Iterator<S> {
    const level = this.#level;
    const heads = this.#runs.runs.map((run) => ({
      reader: this.#runs.reader(run),
      summary: undefined as S | undefined,
      name: '',
      folded: '',
      id: 0,
    }));
    const advance = (head: (typeof heads)[number]): void => {
      if (!head.reader.next()) {
        head.summary = undefined;
        return;
      }
      const id = head.reader.number();
      const labels: (string | null)[] = [];
      for (let i = 0; i < level.labelCount; i++) labels.push(head.reader.text());
      const summary = level.summary(id, labels, readStats(head.reader));
      head.summary = summary;
      head.id = id;
      head.name = level.name(summary);
      head.folded = head.name.toLowerCase();
    };
    heads.forEach(advance);
    for (;;) {
      let best: (typeof heads)[number] | undefined;
      for (const head of heads) {
        if (head.summary === undefined) continue;
        if (
          best === undefined ||
          compareNameThenId(head.folded, head.name, head.id, best.folded, best.name, best.id) < 0
        )
          best = head;
      }
      if (best?.summary === undefined) return;
      yield best.summary;
      advance(best);
    }
  }
}
