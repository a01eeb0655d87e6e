// The memory budget of the user and shop statistics (EXPORT_MEMORY_MB): when what they hold must go
// to disk. Two measures, either of which spills: the estimated bytes of the groups (or summaries)
// held, and what the export's thread holds, measured — V8's used heap (garbage not yet collected
// included) plus its external memory (Buffers and typed arrays, the report's batches among them).
// The estimates alone bounded a few structures, not the thread: 160 MB of estimate came to 260 MB
// of heap while rows arrived and to 470 MB while the summaries were sorted (docs/performance.md).

import { getHeapStatistics } from 'node:v8';
import type { TempFolder } from '../temp-file.js';

export interface GroupMemory {
  /**
   * Bytes the export's thread may hold (V8 heap used plus external memory) before the user and
   * shop groups, and then their summaries, go to disk; also a cap on their estimated bytes.
   */
  readonly budgetBytes: number;
  /** Where runs go; the caller disposes of it once the summaries are written. */
  readonly temp: TempFolder;
  /** How the thread's memory is measured: DEFAULT_GAUGE unless a test says otherwise. */
  readonly gauge?: MemoryGauge;
}

/** What the thread holds now, in bytes, and after how many checks it is measured again. */
export interface MemoryGauge {
  readonly measure: () => number;
  readonly every: number;
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

/**
 * The calling thread's V8 heap in use plus its external memory, in bytes (what
 * process.memoryUsage() gives as heapUsed + external; external includes arrayBuffers). About 3 µs
 * a call, without the system call that process.memoryUsage() makes for the RSS.
 */
export function measuredMemory(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size + heap.external_memory;
}

/** Measured every 4,096 checks (rows or summaries): a few µs each time. */
export const DEFAULT_GAUGE: MemoryGauge = { measure: measuredMemory, every: 4_096 };
/**
 * The least share of the budget worth a spill on measured memory: writing fewer bytes would free
 * too little to matter and would write run after run while the rest of the thread is what is over.
 */
const LEAST_SHARE = 16;

/** One holder's check against the budget (the aggregate's groups, a level's summaries). */
export class MemoryBudget {
  readonly bytes: number;
  readonly #gauge: MemoryGauge;
  #countdown: number;

  constructor(memory: GroupMemory | undefined) {
    this.bytes = memory?.budgetBytes ?? Number.POSITIVE_INFINITY;
    this.#gauge = memory?.gauge ?? DEFAULT_GAUGE;
    this.#countdown = this.#gauge.every;
  }

  /**
   * Whether a holder of `heldBytes` (estimated) should write them to disk now: they pass the budget
   * themselves, or they are worth writing and the thread, measured every few thousand calls, holds
   * more than the budget.
   */
  exceeded(heldBytes: number): boolean {
    if (heldBytes > this.bytes) return true;
    if (heldBytes < this.bytes / LEAST_SHARE || --this.#countdown > 0) return false;
    this.#countdown = this.#gauge.every;
    return this.#gauge.measure() > this.bytes;
  }

  /**
   * Whether `moreBytes` (estimated) beside `heldBytes` would pass the budget: by the estimate, or —
   * when they are worth writing — beside what the thread holds now, measured.
   */
  wouldPass(heldBytes: number, moreBytes: number): boolean {
    const total = heldBytes + moreBytes;
    if (total > this.bytes) return true;
    if (total < this.bytes / LEAST_SHARE) return false;
    return this.#gauge.measure() + moreBytes > this.bytes;
  }
}
