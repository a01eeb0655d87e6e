// Growing a typed array that holds fixed-size entries: the summary sorter's slots and texts
// (summary-sorter.ts) and the statistics' packed batches (shift-statistics.ts).

/** A typed array twice the size with the same start (at least `unit`, the size of one entry). */
export function grown<T extends Float64Array | Int32Array | Uint16Array>(array: T, unit: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(unit, array.length * 2));
  bigger.set(array);
  return bigger;
}
