// The order of every summary table: by name compared after toLowerCase() (Unicode default case
// mapping, no locale) by UTF-16 code units, ties broken by the name as sent, then by id.
// Deterministic on every machine, whatever its ICU data.

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two entries by folded name, name as sent, then id. */
export function compareNameThenId(
  aFolded: string,
  aName: string,
  aId: number,
  bFolded: string,
  bName: string,
  bId: number,
): number {
  return compareText(aFolded, bFolded) || compareText(aName, bName) || aId - bId;
}

/** Sorts by name (case-insensitive, code-unit order, then as sent), then by id; returns the items. */
export function sortByNameThenId<T>(
  items: readonly T[],
  name: (item: T) => string,
  id: (item: T) => number,
): T[] {
  return items
    .map((item) => ({ item, name: name(item), folded: name(item).toLowerCase(), id: id(item) }))
    .sort((a, b) => compareNameThenId(a.folded, a.name, a.id, b.folded, b.name, b.id))
    .map((entry) => entry.item);
}
