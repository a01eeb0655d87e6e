// Shared storage for the pending (start, finish) distance pairs of many small groups: fixed blocks
// of BLOCK_PAIRS uint16 pairs in 512 KiB Uint16Array slabs, chained per group, recycled through a
// free list. Two bytes a distance: the slabs hold a distance for every row of every small group
// (users, shops), 8 bytes a row at two levels, and distances in metres nearly always fit; a value
// that does not is marked WIDE_DISTANCE and kept by its group (group-accumulator.ts). Not a plain
// array per group, grown row by row, which cost more than the rest of the stage (docs/performance.md):
// its backing store is reallocated young and promoted, and every old group that points at a young
// array costs the garbage collector. Slabs are never scanned by the collector.

/** Stands for a null distance. */
export const NO_DISTANCE = 0xffff;
/** Stands for a distance the slab cannot hold (see isCompactDistance); its group keeps the value. */
export const WIDE_DISTANCE = 0xfffe;
export const BLOCK_PAIRS = 16;
const BLOCK_VALUES = BLOCK_PAIRS * 2;
const BLOCKS_PER_SLAB_SHIFT = 13;
const BLOCKS_PER_SLAB = 1 << BLOCKS_PER_SLAB_SHIFT;
const END = -1;

/** True when a distance can be stored in a slab: a whole number from 0 below WIDE_DISTANCE. */
export function isCompactDistance(distance: number): boolean {
  return (distance & 0xffff) === distance && distance < WIDE_DISTANCE;
}

export class PendingDistances {
  private readonly slabs: Uint16Array[] = [];
  /** The next block of each block's chain (END at the end); free blocks are chained the same way. */
  private next = new Int32Array(1_024);
  private blocks = 0;
  private free = END;

  /** A block for a new chain or to follow `previous` (END for the first block of a chain). */
  newBlock(previous: number): number {
    let block = this.free;
    if (block !== END) {
      this.free = this.next[block]!;
    } else {
      block = this.blocks++;
      if (block >>> BLOCKS_PER_SLAB_SHIFT >= this.slabs.length)
        this.slabs.push(new Uint16Array(BLOCKS_PER_SLAB * BLOCK_VALUES));
      if (block >= this.next.length) {
        const grown = new Int32Array(this.next.length * 2);
        grown.set(this.next);
        this.next = grown;
      }
    }
    this.next[block] = END;
    if (previous !== END) this.next[previous] = block;
    return block;
  }

  /** Stores pair `slot` (0..BLOCK_PAIRS-1) of a block: values that fit (isCompactDistance), NO_ or WIDE_DISTANCE. */
  setPair(block: number, slot: number, start: number, finish: number): void {
    const slab = this.slabs[block >>> BLOCKS_PER_SLAB_SHIFT]!;
    const at = (block & (BLOCKS_PER_SLAB - 1)) * BLOCK_VALUES + slot * 2;
    slab[at] = start;
    slab[at + 1] = finish;
  }

  /** Calls `visit` with the first `count` pairs of the chain at `head`, in the order they were set. */
  forEachPair(head: number, count: number, visit: (start: number, finish: number) => void): void {
    let block = head;
    for (let i = 0; i < count; i++) {
      const slot = i % BLOCK_PAIRS;
      if (slot === 0 && i > 0) block = this.next[block]!;
      const slab = this.slabs[block >>> BLOCKS_PER_SLAB_SHIFT]!;
      const at = (block & (BLOCKS_PER_SLAB - 1)) * BLOCK_VALUES + slot * 2;
      visit(slab[at]!, slab[at + 1]!);
    }
  }

  /** Gives the chain at `head` back for reuse. */
  release(head: number): void {
    if (head === END) return;
    let tail = head;
    while (this.next[tail] !== END) tail = this.next[tail]!;
    this.next[tail] = this.free;
    this.free = head;
  }

  /** Blocks ever allocated (a measure of the slabs' size). */
  get allocatedBlocks(): number {
    return this.blocks;
  }
}
