// A compact fingerprint of each exported row, to count what changed between two exports of the
// same period: 16 bytes per row (the shift id as a float64 and a 64-bit hash of the row's exported
// values, row-hash.ts). An export stores them sorted by id in `row-hashes.bin` beside its files
// (row-hashes-format.ts); the next export of the period streams the previous file and walks its own
// sorted entries beside it (row-change-counter.ts). Neither side is ever held in memory whole.
//
// Memory does not grow with the rows: fingerprints are collected in a run of fixed size (128k
// entries by default, ~4.5 MiB with its sort and write buffers), and a full run is sorted and
// appended to a temp file. The rows arrive almost always in id order, so a run is usually
// sorted already and the runs follow one another: the temp file then is row-hashes.bin as it is.
// Otherwise the runs are merged into a second temp file (merge-runs.ts). Temp disk: 16 bytes a
// row, twice that while merging. dispose() removes the temp files, whatever happened before.

import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { EntryFile, type EntryReader } from './entry-file.js';
import { mergeRuns, type EntryRange } from './merge-runs.js';
import { ENTRY_BYTES } from './row-hashes-format.js';

/** Entries kept in memory before they are sorted and spilled: 2 MiB of entries. */
export const DEFAULT_RUN_SIZE = 128 * 1024;
const READ_BLOCK_BYTES = 64 * 1024;

/** Writes the 8-byte hash of `row` into `target` at `offset` (row-hash.ts). */
export type HashInto<R> = (row: R, target: Buffer, offset: number) => void;

export interface RowFingerprintsOptions<R> {
  readonly hash: HashInto<R>;
  /** Where the temp files go; default os.tmpdir(). */
  readonly tempDir?: string;
  /** Entries held in memory before they spill; default DEFAULT_RUN_SIZE. */
  readonly runSize?: number;
}

/**
 * The fingerprints sorted by id, one entry per id: what row-hashes.bin holds. Readable until the
 * RowFingerprints that made them is disposed.
 */
export interface SortedFingerprints {
  /** Entries, i.e. distinct ids. */
  readonly count: number;
  /** Length of row-hashes.bin: header and entries. */
  readonly bytes: number;
  /** The bytes of row-hashes.bin. */
  stream(): Readable;
  /** The entries in id order, a block at a time. */
  entries(): EntryReader;
}

interface Run extends EntryRange {
  /** Its largest id. */
  readonly last: number;
}

/** The fingerprints of one export: add() every row, finish() once, dispose() always. */
export class RowFingerprints<R> {
  readonly #hash: HashInto<R>;
  readonly #tempDir: string;
  readonly #runSize: number;
  /** The run being collected, in the order rows were written. */
  readonly #ids: Float64Array;
  readonly #hashes: Buffer;
  #filled = 0;
  #inOrder = true;
  /** The run's entries in file format, and its sort order when it needs one. */
  #out: Buffer | undefined;
  #order: Uint32Array | undefined;
  #count = 0;
  #adding = true;
  /** Spilled runs, each sorted without repeats, one after another. */
  #spilled: EntryFile | undefined;
  readonly #runs: Run[] = [];
  /** Whether each run's first id is above the previous run's last, i.e. the spilled file is sorted. */
  #runsInOrder = true;
  #merged: EntryFile | undefined;

  constructor(options: RowFingerprintsOptions<R>) {
    this.#hash = options.hash;
    this.#tempDir = options.tempDir ?? tmpdir();
    this.#runSize = Math.max(1, Math.floor(options.runSize ?? DEFAULT_RUN_SIZE));
    this.#ids = new Float64Array(this.#runSize);
    this.#hashes = Buffer.alloc(this.#runSize * 8);
  }

  /** Rows added, counting repeated ids. */
  get count(): number {
    return this.#count;
  }

  /** Notes the row `id` and the hash of `row`. */
  add(id: number, row: R): void {
    this.#hash(row, this.#hashes, this.#next(id) * 8);
    this.#added();
  }

  /**
   * Notes the rows `ids` and their hashes, already taken: 8 bytes each, one after another in
   * `hashes`. Copied a run's room at a time, not row by row.
   */
  addHashes(ids: Float64Array, hashes: Buffer): void {
    if (!this.#adding) throw new Error('RowFingerprints.add() after finish() or dispose()');
    for (let from = 0; from < ids.length;) {
      const at = this.#filled;
      const rows = Math.min(ids.length - from, this.#runSize - at);
      let last = at > 0 ? (this.#ids[at - 1] as number) : -Infinity;
      for (let k = from; k < from + rows; k++) {
        const id = ids[k] as number;
        if (id < last) this.#inOrder = false;
        last = id;
      }
      this.#ids.set(ids.subarray(from, from + rows), at);
      hashes.copy(this.#hashes, at * 8, from * 8, (from + rows) * 8);
      from += rows;
      this.#filled += rows;
      this.#count += rows;
      if (this.#filled === this.#runSize) this.#spill();
    }
  }

  /** Takes the id of the next entry; returns its index in the run. */
  #next(id: number): number {
    if (!this.#adding) throw new Error('RowFingerprints.add() after finish() or dispose()');
    const i = this.#filled;
    if (i > 0 && id < (this.#ids[i - 1] as number)) this.#inOrder = false;
    this.#ids[i] = id;
    return i;
  }

  #added(): void {
    this.#filled++;
    this.#count++;
    if (this.#filled === this.#runSize) this.#spill();
  }

  /**
   * The entries sorted by id; of rows sharing an id only the first written is kept. Call once;
   * the result lives in temp files until dispose().
   */
  async finish(): Promise<SortedFingerprints> {
    if (!this.#adding) throw new Error('RowFingerprints.finish() called twice or after dispose()');
    this.#adding = false;
    this.#spill();
    const spilled = (this.#spilled ??= new EntryFile(this.#tempDir, 'row-hashes'));
    if (this.#runsInOrder) return sortedView(spilled);
    const merged = (this.#merged = new EntryFile(this.#tempDir, 'row-hashes-merged'));
    await mergeRuns(spilled, this.#runs, merged);
    // The runs are no longer needed; free their disk now rather than at dispose().
    this.#spilled = undefined;
    await spilled.dispose();
    return sortedView(merged);
  }

  /** Removes the temp files; safe at any time and more than once. */
  async dispose(): Promise<void> {
    this.#adding = false;
    const files = [this.#spilled, this.#merged];
    this.#spilled = undefined;
    this.#merged = undefined;
    await Promise.all(files.map((file) => file?.dispose()));
  }

  /** Sorts the run collected so far and appends it to the spilled file. */
  #spill(): void {
    const n = this.#filled;
    if (n === 0) return;
    const ids = this.#ids;
    const hashes = this.#hashes;
    const out = (this.#out ??= Buffer.allocUnsafe(this.#runSize * ENTRY_BYTES));
    const order = this.#inOrder ? undefined : this.#sortOrder(n);
    const previous = this.#runs.at(-1);
    // The previous run's last id was written before any id of this run: that entry wins.
    let last = previous?.last ?? Number.NEGATIVE_INFINITY;
    let at = 0;
    for (let k = 0; k < n; k++) {
      const i = order === undefined ? k : (order[k] as number);
      const id = ids[i] as number;
      if (id === last) continue;
      last = id;
      out.writeDoubleLE(id, at);
      hashes.copy(out, at + 8, i * 8, i * 8 + 8);
      at += ENTRY_BYTES;
    }
    this.#filled = 0;
    this.#inOrder = true;
    if (at === 0) return;
    const file = (this.#spilled ??= new EntryFile(this.#tempDir, 'row-hashes'));
    const start = file.entries;
    file.append(out, at / ENTRY_BYTES);
    if (previous !== undefined && !(out.readDoubleLE(0) > previous.last)) this.#runsInOrder = false;
    this.#runs.push({ start, end: file.entries, last });
  }

  /** The indexes of the run's first `n` entries sorted by id; stable, so the first written leads. */
  #sortOrder(n: number): Uint32Array {
    const order = (this.#order ??= new Uint32Array(this.#runSize)).subarray(0, n);
    for (let i = 0; i < n; i++) order[i] = i;
    const ids = this.#ids;
    return order.sort((a, b) => (ids[a] as number) - (ids[b] as number) || a - b);
  }
}

function sortedView(file: EntryFile): SortedFingerprints {
  return {
    count: file.entries,
    bytes: file.bytes,
    stream: () => file.stream(),
    entries: () => file.reader(0, file.entries, READ_BLOCK_BYTES),
  };
}
