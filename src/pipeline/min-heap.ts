// A binary min-heap over a comparison, for the merges of sorted runs (group-spill.ts,
// summary-sorter.ts): each merged item costs log(runs) comparisons, so a spill may write many small
// runs without the merge scanning every run head per item.

export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #less: (a: T, b: T) => boolean;

  constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The least item, or undefined when the heap is empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    let at = items.length;
    items.push(item);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#less(item, items[parent]!)) break;
      items[at] = items[parent]!;
      at = parent;
    }
    items[at] = item;
  }

  /** Removes and returns the least item. */
  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) this.#siftDown(last);
    return top;
  }

  /** Puts `item` where the least item was (cheaper than pop() then push()). */
  replaceTop(item: T): void {
    this.#siftDown(item);
  }

  #siftDown(item: T): void {
    const items = this.#items;
    const n = items.length;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && this.#less(items[child + 1]!, items[child]!)) child++;
      if (!this.#less(items[child]!, item)) break;
      items[at] = items[child]!;
      at = child;
    }
    items[at] = item;
  }
}
