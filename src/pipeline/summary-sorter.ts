// The external sort of a spilled level's summaries by name then id: summaries arrive in id order
// from the merge of the group runs (group-spill.ts), are held while they fit the budget, written as
// a sorted run when they do not (estimated, or the thread measured past EXPORT_MEMORY_MB:
// group-memory.ts), and merged from the runs, a record at a time, whenever the table is read. So
// neither the summaries nor their sort are ever all in memory; the CSV files and the workbook's
// By shop / By user sheets read the table as an iterator (SummaryRows), as often as they need.

import type { GroupStats, SummaryRows } from '../domain/summary.js';
import type { GroupAccumulator } from './group-accumulator.js';
import { labelBytes, MemoryBudget, SUMMARY_BYTES, type GroupMemory } from './group-memory.js';
import { MinHeap } from './min-heap.js';
import { compareNameThenId, sortByNameThenId } from './name-order.js';
import { RecordBuilder, RunFile, type RecordReader } from './record-runs.js';
import type { SpillLevel } from './spill-level.js';

/**
 * A run holds at most this share of the budget by estimate: sorting it costs about as much again
 * (an entry and a folded name a summary, two arrays), beside the group runs' read blocks.
 */
const SORT_SHARE = 4;

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
export class SummarySorter<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> {
  readonly #level: SpillLevel<G, S>;
  readonly #memory: GroupMemory;
  readonly #budget: MemoryBudget;
  readonly #record = new RecordBuilder();
  #buffer: S[] = [];
  #bufferBytes = 0;
  #count = 0;
  #runs: RunFile | null = null;

  constructor(level: SpillLevel<G, S>, memory: GroupMemory) {
    this.#level = level;
    this.#memory = memory;
    this.#budget = new MemoryBudget(memory);
  }

  add(summary: S): void {
    this.#buffer.push(summary);
    this.#count++;
    this.#bufferBytes += SUMMARY_BYTES + labelBytes(this.#level.summaryLabels(summary));
    if (this.#bufferBytes > this.#budget.bytes / SORT_SHARE || this.#budget.exceeded(this.#bufferBytes))
      this.#writeRun();
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
    const sorted = this.#sorted();
    this.#buffer = [];
    this.#bufferBytes = 0;
    const record = this.#record;
    for (let i = 0; i < sorted.length; i++) {
      const summary = sorted[i]!;
      // Each summary is let go once written: the run's writing does not hold the whole buffer.
      sorted[i] = undefined as unknown as S;
      record.clear();
      record.number(this.#level.id(summary));
      for (const label of this.#level.summaryLabels(summary)) record.text(label);
      writeStats(record, summary.stats);
      runs.append(record);
    }
    runs.endRun();
  }
}

/** One run's reader and the summary it is at, ordered by name then id. */
interface SummaryHead<S> {
  readonly reader: RecordReader;
  summary: S;
  name: string;
  folded: string;
  id: number;
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
    const heap = new MinHeap<SummaryHead<S>>(
      (a, b) => compareNameThenId(a.folded, a.name, a.id, b.folded, b.name, b.id) < 0,
    );
    for (const run of this.#runs.runs) {
      const reader = this.#runs.reader(run);
      const head = { reader, summary: undefined as unknown as S, name: '', folded: '', id: 0 };
      if (this.#advance(head)) heap.push(head);
    }
    for (let head = heap.peek(); head !== undefined; head = heap.peek()) {
      yield head.summary;
      if (this.#advance(head)) heap.replaceTop(head);
      else heap.pop();
    }
  }

  /** Reads the head's next summary; false at the end of its run. */
  #advance(head: SummaryHead<S>): boolean {
    const level = this.#level;
    if (!head.reader.next()) return false;
    const id = head.reader.number();
    const labels: (string | null)[] = [];
    for (let i = 0; i < level.labelCount; i++) labels.push(head.reader.text());
    head.summary = level.summary(id, labels, readStats(head.reader));
    head.id = id;
    head.name = level.name(head.summary);
    head.folded = head.name.toLowerCase();
    return true;
  }
}
