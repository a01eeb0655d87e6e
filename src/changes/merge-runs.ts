// The k-way merge of sorted runs of fingerprints into one sorted file, for the rare export whose
// rows do not arrive in id order. Each run is sorted with no repeated id; of an id found in several
// runs the earliest run's entry is kept, as it was written first. Memory: one block per run (smaller
// blocks when there are many runs, so that the total stays bounded) and one output block.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EntryFile, EntryReader } from './entry-file.js';
import { ENTRY_BYTES } from './row-hashes-format.js';

/** Entries [start, end) of a file. */
export interface EntryRange {
  readonly start: number;
  readonly end: number;
}

const MAX_BLOCK_BYTES = 64 * 1024;
const MIN_BLOCK_BYTES = 4 * 1024;
/** What the run readers' blocks may take together, when there are enough runs to need a limit. */
const READ_BUDGET_BYTES = 4 * 1024 * 1024;
const OUTPUT_BLOCK_BYTES = 64 * 1024;

interface Head {
  readonly reader: EntryReader;
  /** The run's place: of equal ids the earlier run comes first. */
  readonly run: number;
}

function before(a: Head, b: Head): boolean {
  return a.reader.id < b.reader.id || (a.reader.id === b.reader.id && a.run < b.run);
}

/** Appends the runs of `source`, merged and without repeated ids, to `target`. */
export async function mergeRuns(
  source: EntryFile,
  runs: readonly EntryRange[],
  target: EntryFile,
): Promise<void> {
  const blockBytes = Math.max(
    MIN_BLOCK_BYTES,
    Math.min(MAX_BLOCK_BYTES, Math.floor(READ_BUDGET_BYTES / Math.max(1, runs.length))),
  );
  // A binary min-heap of the runs' current entries.
  const heap: Head[] = runs
    .map((range, run) => ({ reader: source.reader(range.start, range.end, blockBytes), run }))
    .filter((head) => !head.reader.done);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);

  const out = Buffer.allocUnsafe(OUTPUT_BLOCK_BYTES);
  let at = 0;
  let last = Number.NEGATIVE_INFINITY;
  while (heap.length > 0) {
    const head = heap[0] as Head;
    const reader = head.reader;
    if (reader.id !== last) {
      last = reader.id;
      reader.copyTo(out, at);
      at += ENTRY_BYTES;
      if (at === out.length) {
        target.append(out, at / ENTRY_BYTES);
        at = 0;
        // Millions of entries take a while: let the stream and the job lock breathe.
        await yieldToEventLoop();
      }
    }
    reader.advance();
    if (reader.done) {
      const tail = heap.pop() as Head;
      if (heap.length === 0) break;
      heap[0] = tail;
    }
    siftDown(heap, 0);
  }
  if (at > 0) target.append(out, at / ENTRY_BYTES);
}

function siftDown(heap: Head[], from: number): void {
  const item = heap[from] as Head;
  let i = from;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && before(heap[right] as Head, heap[left] as Head) ? right : left;
    if (!before(heap[child] as Head, item)) break;
    heap[i] = heap[child] as Head;
    i = child;
  }
  heap[i] = item;
}
