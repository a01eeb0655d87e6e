// A compact set of integer ids (any safe integer, negative ones too), so dedup stays small at
// millions of ids. Roaring-style: an id splits into a chunk (floor(id / 2^16)) and a 16-bit low
// part, and a chunk that holds many ids gets a container — a sorted Uint16Array while it holds up to
// 4,096 ids, then a bitmap of 2^16 bits (8 KiB). Sequential ids cost ~1 bit each.
//
// A container costs ~200 bytes before its first id, so a container per id would make random or
// widely spread ids (up to 2^53) cost more than a plain Set. Ids of chunks that hold few ids
// therefore live in a flat open-addressing hash table of float64 (8 bytes a slot, at most 75% full).
// Each time the table fills up, and a sample says its ids are dense enough, its ids are sorted and
// every chunk that has gathered PROMOTE_AT ids moves into a container; the rest stay. So dense ids
// end in bitmaps, sparse ones in the table.

const CHUNK_SIZE = 65_536;
/** Above this many ids a bitmap (8 KiB) is smaller than a sorted array (2 bytes an id). */
const ARRAY_LIMIT = 4_096;
const BITMAP_WORDS = CHUNK_SIZE / 32;
/** Ids of one chunk in the table before they move into a container (break-even is ~25). */
const PROMOTE_AT = 32;
const MIN_TABLE_SLOTS = 1_024;
/** Ids sampled to decide whether a full table is worth sorting (less than a full table holds). */
const SAMPLE_SIZE = 256;
const MAX_LOAD = 0.75;
const TWO_POW_32 = 4_294_967_296;

/** Index of `value` in values[0..size), or ~(insertion point) when absent. */
function search(values: Uint16Array, size: number, value: number): number {
  let lo = 0;
  let hi = size - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = values[mid]!;
    if (at < value) lo = mid + 1;
    else if (at > value) hi = mid - 1;
    else return mid;
  }
  return ~lo;
}

/** The low parts of one chunk: a sorted array while small, a bitmap once dense. */
class Container {
  private values: Uint16Array;
  private bits: Uint32Array | null = null;
  private size: number;

  /** `sortedLows` (distinct, ascending) becomes the container's array. */
  constructor(sortedLows: Uint16Array) {
    this.values = sortedLows;
    this.size = sortedLows.length;
    if (this.size > ARRAY_LIMIT) this.toBitmap();
  }

  /** Adds a low part; false when it was already there. */
  add(low: number): boolean {
    const bits = this.bits;
    if (bits !== null) {
      const word = low >>> 5;
      const mask = 1 << (low & 31);
      const current = bits[word]!;
      if ((current & mask) !== 0) return false;
      bits[word] = current | mask;
      this.size++;
      return true;
    }
    const size = this.size;
    let values = this.values;
    let at = size;
    // Ids mostly arrive in ascending order, so appending is the common case.
    if (size > 0 && values[size - 1]! >= low) {
      const found = search(values, size, low);
      if (found >= 0) return false;
      at = ~found;
    }
    if (size === ARRAY_LIMIT) {
      this.toBitmap();
      return this.add(low);
    }
    if (size === values.length) {
      const grown = new Uint16Array(Math.min(ARRAY_LIMIT, Math.max(8, size * 2)));
      grown.set(values);
      this.values = values = grown;
    }
    if (at < size) values.copyWithin(at + 1, at, size);
    values[at] = low;
    this.size = size + 1;
    return true;
  }

  private toBitmap(): void {
    const bits = new Uint32Array(BITMAP_WORDS);
    for (let i = 0; i < this.size; i++) {
      const low = this.values[i]!;
      bits[low >>> 5]! |= 1 << (low & 31);
    }
    this.bits = bits;
    this.values = new Uint16Array(0);
  }
}

/** A 32-bit mix of both halves of a float64 integer (murmur3's finaliser). */
function hashOf(id: number): number {
  const high = Math.floor(id / TWO_POW_32) | 0;
  let h = Math.imul((id >>> 0) ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class SeenIds {
  private readonly containers = new Map<number, Container>();
  /** Open addressing with linear probing; NaN marks an empty slot (an id is never NaN). */
  private table = new Float64Array(MIN_TABLE_SLOTS).fill(NaN);
  private tableSize = 0;
  // The chunk of the last id and its container (or none): consecutive ids share a chunk.
  private lastChunk = NaN;
  private lastContainer: Container | undefined = undefined;

  /** Chunks held in containers rather than in the hash table (a measure of compactness). */
  get containerCount(): number {
    return this.containers.size;
  }

  /** Adds a safe integer; true when it was not in the set yet. */
  add(id: number): boolean {
    const chunk = Math.floor(id / CHUNK_SIZE);
    if (chunk !== this.lastChunk) {
      this.lastChunk = chunk;
      this.lastContainer = this.containers.get(chunk);
    }
    const container = this.lastContainer;
    if (container === undefined) return this.addToTable(id);
    return container.add(id - chunk * CHUNK_SIZE);
  }

  private addToTable(id: number): boolean {
    const table = this.table;
    const mask = table.length - 1;
    let slot = hashOf(id) & mask;
    for (;;) {
      const value = table[slot]!;
      if (value === id) return false;
      if (value !== value) break;
      slot = (slot + 1) & mask;
    }
    if (this.tableSize + 1 > table.length * MAX_LOAD) {
      this.rebuildTable();
      return this.add(id);
    }
    table[slot] = id;
    this.tableSize++;
    return true;
  }

  /** Moves the chunks that have gathered enough ids into containers and resizes the table. */
  private rebuildTable(): void {
    const old = this.table;
    let live = 0;
    for (let i = 0; i < old.length; i++) {
      const value = old[i]!;
      if (value === value) old[live++] = value;
    }
    const ids = old.subarray(0, live);
    const kept = this.looksDense(ids) ? this.promoteDenseChunks(ids) : live;
    let slots = MIN_TABLE_SLOTS;
    while (kept >= slots / 2) slots *= 2;
    const table = new Float64Array(slots).fill(NaN);
    const mask = slots - 1;
    for (let i = 0; i < kept; i++) {
      const id = ids[i]!;
      let slot = hashOf(id) & mask;
      while (table[slot] === table[slot]) slot = (slot + 1) & mask;
      table[slot] = id;
    }
    this.table = table;
    this.tableSize = kept;
    this.lastChunk = NaN;
    this.lastContainer = undefined;
  }

  /**
   * Whether sorting the table is worth it: true when the bulk of its ids (10th to 90th percentile
   * of a sample; the table's order is a hash order, so evenly spaced slots are a fair sample) is
   * dense enough to average PROMOTE_AT ids a chunk. Random ids over a wide range skip the sort,
   * which would cost most of the time of adding them and move almost nothing.
   */
  private looksDense(ids: Float64Array): boolean {
    const sample = new Float64Array(SAMPLE_SIZE);
    const step = ids.length / SAMPLE_SIZE;
    for (let i = 0; i < SAMPLE_SIZE; i++) sample[i] = ids[Math.floor(i * step)]!;
    sample.sort();
    const low = sample[Math.floor(SAMPLE_SIZE * 0.1)]!;
    const high = sample[Math.floor(SAMPLE_SIZE * 0.9)]!;
    const chunks = Math.floor(high / CHUNK_SIZE) - Math.floor(low / CHUNK_SIZE) + 1;
    return (ids.length * 0.8) / chunks >= PROMOTE_AT;
  }

  /** Sorts the ids in place, moves every chunk with PROMOTE_AT ids into a container, and returns
   * how many ids remain, compacted at the front. */
  private promoteDenseChunks(ids: Float64Array): number {
    ids.sort();
    const live = ids.length;
    let kept = 0;
    for (let start = 0; start < live;) {
      const chunk = Math.floor(ids[start]! / CHUNK_SIZE);
      let end = start + 1;
      while (end < live && Math.floor(ids[end]! / CHUNK_SIZE) === chunk) end++;
      if (end - start >= PROMOTE_AT) {
        const lows = new Uint16Array(end - start);
        for (let i = start; i < end; i++) lows[i - start] = ids[i]! - chunk * CHUNK_SIZE;
        this.containers.set(chunk, new Container(lows));
      } else {
        for (let i = start; i < end; i++) ids[kept++] = ids[i]!;
      }
      start = end;
    }
    return kept;
  }
}
