// Owns the filter of an export: only the shifts of these divisions, regions and shops (a list
// absent: no condition on it). An export definition's `filter:` becomes one; the export applies it,
// counting the rows it leaves out instead of rejecting them.

export interface RowFilter {
  readonly divisions?: readonly number[];
  readonly regions?: readonly number[];
  readonly shops?: readonly number[];
}
