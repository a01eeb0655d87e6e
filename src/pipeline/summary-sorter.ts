// The external sort of a spilled level's summaries by name then id: summaries arrive in id order
// from the merge of the group runs (group-spill.ts) and are held, compactly, until they pass a
// quarter of the budget by estimate or the thread is measured past EXPORT_MEMORY_MB
// (group-memory.ts); then they are written as a sorted run. The runs are merged, a record at a
// time, whenever the table is read. So neither the summaries nor their sort are ever all in
// memory; the CSV files and the workbook's By shop / By user sheets read the table as an iterator
// (SummaryRows), as often as they need. Sorted on the statistics' thread (statistics-thread.ts),
// a table is read on the export's thread from the same file (spilledTableOf, readSpilledTable).

import type { GroupStats, SummaryRows } from '../domain/summary.js';
import type { GroupAccumulator } from './group-accumulator.js';
import { grown } from './grown-array.js';
import { MemoryBudget, type GroupMemory } from './group-memory.js';
import { MinHeap } from './min-heap.js';
import { compareNameThenId } from './name-order.js';
import {
  RecordBuilder,
  RunFile,
  type ReadableRuns,
  type RecordReader,
  type RunRange,
} from './record-runs.js';
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

/** The held summaries' records go into chunks of this size, kept from run to run. */
const CHUNK_BYTES = 1 << 20;
/** Estimated bytes of a held summary beside its record and its names' code units: its slots. */
const HELD_SUMMARY_BYTES = 64;
/** Numbers kept of each held summary, in `#slots`. */
const SLOTS = 7;
const CHUNK = 0;
const START = 1;
const LENGTH = 2;
const TEXT = 3;
const FOLDED_LENGTH = 4;
const NAME_LENGTH = 5;
const ID = 6;

/**
 * Summaries in, the table sorted by name then id out, through sorted runs in a temp file merged
 * whenever the table is read. A summary is held as its run record in reused byte chunks and its
 * sort keys (folded name and name as UTF-16 code units, id) in reused typed arrays, never as
 * objects or strings: whatever is held for a run outlives the young generation, and summary
 * objects held so became ~200 bytes of old garbage each (60 MB at 300k users) before V8 collected.
 */
export class SummarySorter<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> {
  readonly #level: SpillLevel<G, S>;
  readonly #memory: GroupMemory;
  readonly #budget: MemoryBudget;
  readonly #record = new RecordBuilder();
  readonly #chunks: Buffer[] = [];
  /** The chunk being filled, and where in it. */
  #chunk = 0;
  #at = 0;
  /** SLOTS numbers a held summary: its record's chunk, start and length, its keys' place and lengths, its id. */
  #slots = new Float64Array(SLOTS * 1_024);
  /** Each held summary's folded name, then its name, as UTF-16 code units. */
  #text = new Uint16Array(1 << 16);
  #textLength = 0;
  #held = 0;
  #heldBytes = 0;
  #count = 0;
  #runs: RunFile | null = null;

  constructor(level: SpillLevel<G, S>, memory: GroupMemory) {
    this.#level = level;
    this.#memory = memory;
    this.#budget = new MemoryBudget(memory);
  }

  add(summary: S): void {
    const level = this.#level;
    const record = this.#record;
    record.clear();
    record.number(level.id(summary));
    for (const label of level.summaryLabels(summary)) record.text(label);
    writeStats(record, summary.stats);
    if (SLOTS * (this.#held + 1) > this.#slots.length) this.#slots = grown(this.#slots, SLOTS);
    const at = SLOTS * this.#held++;
    const slots = this.#slots;
    this.#hold(record, at);
    const name = level.name(summary);
    const folded = name.toLowerCase();
    slots[at + TEXT] = this.#textLength;
    slots[at + FOLDED_LENGTH] = folded.length;
    slots[at + NAME_LENGTH] = name.length;
    slots[at + ID] = level.id(summary);
    this.#appendText(folded);
    this.#appendText(name);
    this.#count++;
    this.#heldBytes += HELD_SUMMARY_BYTES + record.length + 2 * (folded.length + name.length);
    if (this.#heldBytes > this.#budget.bytes / SORT_SHARE || this.#budget.exceeded(this.#heldBytes))
      this.#writeRun();
  }

  /** The table: the held summaries written as a last run, and every run merged as it is read. */
  finish(): SummaryRows<S> {
    if (this.#count === 0) return [];
    this.#writeRun();
    this.#chunks.length = 0;
    return new SpilledSummaries(this.#level, this.#runs!, this.#count);
  }

  /** Copies a record into the chunks and notes where it went in slots[at…]. */
  #hold(record: RecordBuilder, at: number): void {
    let chunk = this.#chunks[this.#chunk];
    if (chunk === undefined || this.#at + record.length > chunk.length) {
      if (chunk !== undefined) this.#chunk++;
      this.#at = 0;
      chunk = this.#chunks[this.#chunk];
      if (chunk === undefined || chunk.length < record.length) {
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, record.length));
        this.#chunks[this.#chunk] = chunk;
      }
    }
    record.buffer.copy(chunk, this.#at, 0, record.length);
    this.#slots[at + CHUNK] = this.#chunk;
    this.#slots[at + START] = this.#at;
    this.#slots[at + LENGTH] = record.length;
    this.#at += record.length;
  }

  #appendText(text: string): void {
    while (this.#textLength + text.length > this.#text.length) this.#text = grown(this.#text, 1);
    const codes = this.#text;
    let end = this.#textLength;
    for (let i = 0; i < text.length; i++) codes[end++] = text.charCodeAt(i);
    this.#textLength = end;
  }

  /** Orders held summaries a and b by folded name, name as sent, then id (name-order.ts). */
  #compare(a: number, b: number): number {
    const slots = this.#slots;
    const codes = this.#text;
    const at = SLOTS * a;
    const bt = SLOTS * b;
    const aText = slots[at + TEXT]!;
    const bText = slots[bt + TEXT]!;
    const aFolded = slots[at + FOLDED_LENGTH]!;
    const bFolded = slots[bt + FOLDED_LENGTH]!;
    return (
      compareCodes(codes, aText, aFolded, bText, bFolded) ||
      compareCodes(
        codes,
        aText + aFolded,
        slots[at + NAME_LENGTH]!,
        bText + bFolded,
        slots[bt + NAME_LENGTH]!,
      ) ||
      slots[at + ID]! - slots[bt + ID]!
    );
  }

  #writeRun(): void {
    const held = this.#held;
    if (held === 0) return;
    const runs = (this.#runs ??= new RunFile(this.#memory.temp, `summaries-${this.#level.label}`));
    const order = new Uint32Array(held);
    for (let i = 0; i < held; i++) order[i] = i;
    order.sort((a, b) => this.#compare(a, b));
    const slots = this.#slots;
    for (const i of order) {
      const at = SLOTS * i;
      runs.appendBytes(this.#chunks[slots[at + CHUNK]!]!, slots[at + START]!, slots[at + LENGTH]!);
    }
    runs.endRun();
    this.#held = 0;
    this.#heldBytes = 0;
    this.#textLength = 0;
    this.#chunk = 0;
    this.#at = 0;
  }
}

/** Compares codes[a, a + aLength) with codes[b, b + bLength) as JavaScript compares strings. */
function compareCodes(codes: Uint16Array, a: number, aLength: number, b: number, bLength: number): number {
  const n = Math.min(aLength, bLength);
  for (let k = 0; k < n; k++) {
    const d = codes[a + k]! - codes[b + k]!;
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

/** One run's reader and the summary it is at, ordered by name then id. */
interface SummaryHead<S> {
  readonly reader: RecordReader;
  summary: S;
  name: string;
  folded: string;
  id: number;
}

/** Where a spilled table's sorted runs lie, and how many summaries they hold: enough to read it elsewhere. */
export interface SpilledTable {
  readonly path: string;
  readonly bytes: number;
  readonly runs: readonly RunRange[];
  readonly length: number;
}

/** Where the table's runs lie, when it was spilled to a file written here; undefined for an array. */
export function spilledTableOf(rows: SummaryRows<unknown>): SpilledTable | undefined {
  if (!(rows instanceof SpilledSummaries)) return undefined;
  const runs = rows.runs;
  if (!(runs instanceof RunFile)) return undefined;
  return { path: runs.path, bytes: runs.bytes, runs: runs.runs, length: rows.length };
}

/** A table spilled elsewhere (spilledTableOf), read from `runs`, its file opened here. */
export function readSpilledTable<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
>(level: SpillLevel<G, S>, runs: ReadableRuns, length: number): SummaryRows<S> {
  return new SpilledSummaries(level, runs, length);
}

/** A summary table read back from sorted runs, merged by name then id each time it is iterated. */
class SpilledSummaries<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> implements SummaryRows<S> {
  readonly #level: SpillLevel<G, S>;
  readonly runs: ReadableRuns;
  readonly length: number;

  constructor(level: SpillLevel<G, S>, runs: ReadableRuns, length: number) {
    this.#level = level;
    this.runs = runs;
    this.length = length;
  }

  *[Symbol.iterator](): Iterator<S> {
    const heap = new MinHeap<SummaryHead<S>>(
      (a, b) => compareNameThenId(a.folded, a.name, a.id, b.folded, b.name, b.id) < 0,
    );
    for (const run of this.runs.runs) {
      const reader = this.runs.reader(run);
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
