// Groups past the memory budget: when the user and shop groups of an export hold more than
// EXPORT_MEMORY_MB allows (group-memory.ts), their state so far (labels, counters, distances as
// (value, times) pairs) is written to a temp file as a run sorted by id, a record at a time through
// the run file's 1 MiB buffer, and the groups start again empty. At the end the runs are merged by
// id: counters add up, the distances of a group come together for its exact MEDIAN and
// PERCENTILE.INC, and its labels are those of its latest run (so of its latest row, as in memory).
// The summaries, too many to hold, go through an external sort by name (summary-sorter.ts), read
// back as often as a writer needs. An export that stays within the budget never writes here and
// holds its summaries as arrays.

import type { GroupStats, SummaryRows } from '../domain/summary.js';
import { percentileInc } from './distance-distribution.js';
import type { GroupAccumulator } from './group-accumulator.js';
import type { GroupMemory } from './group-memory.js';
import { MinHeap } from './min-heap.js';
import { RecordBuilder, RunFile, type RecordReader } from './record-runs.js';
import type { SpillLevel } from './spill-level.js';
import { SummarySorter } from './summary-sorter.js';

// Where the stages (shift-pipeline.ts) and the export import the budget's type from.
export type { GroupMemory } from './group-memory.js';

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
    // By id, then in the order the runs were written: a group's latest labels are read last.
    const heap = new MinHeap<GroupHead>((a, b) => a.id < b.id || (a.id === b.id && a.run < b.run));
    runs.runs.forEach((range, run) => {
      const head = { reader: runs.reader(range), id: 0, run };
      if (advance(head)) heap.push(head);
    });
    const merged = new MergedGroup();
    for (let head = heap.peek(); head !== undefined; head = heap.peek()) {
      const id = head.id;
      merged.clear();
      for (; head !== undefined && head.id === id; head = heap.peek()) {
        merged.read(head.reader, labelCount);
        if (advance(head)) heap.replaceTop(head);
        else heap.pop();
      }
      sorter.add(this.#level.summary(id, merged.labels, merged.stats()));
    }
    return sorter.finish();
  }
}

/** One run's reader, at the id of its next group. */
interface GroupHead {
  readonly reader: RecordReader;
  id: number;
  /** The run's place in the file: runs written later hold later labels. */
  readonly run: number;
}

/** Moves a head to its run's next group; false at the end of the run. */
function advance(head: GroupHead): boolean {
  if (!head.reader.next()) return false;
  head.id = head.reader.number();
  return true;
}
