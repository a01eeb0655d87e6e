// Which rows an export keeps, by the organisation: lists of division, region and shop ids (an
// export definition's `filter`). A row is kept when it matches every list that is given; a list
// left out keeps every row. The pipeline's scope-filter stage applies it (src/pipeline/scope-filter.ts).

export interface RowFilter {
  readonly divisions?: readonly number[];
  readonly regions?: readonly number[];
  readonly shops?: readonly number[];
}
