// Turns the report's id and start_time filters into an index range of the generator. Rows are
// generated in start_time order with increasing ids, so `id=gt.N`, `start_time=gte.X` and
// `start_time=lt.Y` (what the client sends) become a jump, not a scan. A bound that the range
// captures exactly is dropped from the per-row predicate; the others stay in it, so the result is
// the same as scanning every row.

import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import type { FilterNode } from './postgrest-filter.js';
import { coerce } from './shift-filter.js';
import type { ShiftGenerator } from './shift-generator.js';

export interface IndexRange {
  /** First index that can match. */
  readonly lo: number;
  /** One past the last index that can match (lo when nothing can). */
  readonly hi: number;
  /** Filters the range does not capture exactly: still to be tested per row. */
  readonly residual: readonly FilterNode[];
}

export function indexRangeOf(generator: ShiftGenerator, filters: readonly FilterNode[]): IndexRange {
  let lo = 0;
  let hi = generator.rows;
  const residual: FilterNode[] = [];
  for (const node of flattenAnd(filters)) {
    if (
      node.kind !== 'compare' ||
      node.negated ||
      node.operator === 'neq' ||
      node.operator.endsWith('like')
    ) {
      residual.push(node);
      continue;
    }
    if (node.column === 'id') {
      const id = Number(coerce('id', 'integer', node.value));
      const first = (x: number): number => generator.firstIndexWithIdAtLeast(x);
      if (node.operator === 'gte' || node.operator === 'eq') lo = Math.max(lo, first(id));
      if (node.operator === 'gt') lo = Math.max(lo, first(id + 1));
      if (node.operator === 'lt') hi = Math.min(hi, first(id));
      if (node.operator === 'lte' || node.operator === 'eq') hi = Math.min(hi, first(id + 1));
    } else if (node.column === 'start_time') {
      const text = String(coerce('start_time', 'timestamp', node.value));
      const seconds = parseLocalDateTimeSeconds(text.slice(0, 19)) ?? 0;
      const whole = text.length === 19;
      const first = (s: number): number => generator.firstIndexWithStartAtLeast(s);
      // Rows carry whole seconds plus an optional fraction: only >= and < a whole second are exact.
      if (node.operator === 'gte' || node.operator === 'gt' || node.operator === 'eq')
        lo = Math.max(lo, first(seconds));
      if (node.operator === 'lt') hi = Math.min(hi, first(whole ? seconds : seconds + 1));
      if (node.operator === 'lte' || node.operator === 'eq') hi = Math.min(hi, first(seconds + 1));
      if (!whole || node.operator === 'gt' || node.operator === 'lte' || node.operator === 'eq')
        residual.push(node);
    } else {
      residual.push(node);
    }
  }
  return { lo, hi: Math.max(lo, hi), residual };
}

/** The conjuncts of the query: its parameters, with non-negated and=(…) groups opened up. */
function flattenAnd(filters: readonly FilterNode[]): FilterNode[] {
  return filters.flatMap((node) =>
    node.kind === 'and' && !node.negated ? flattenAnd(node.children) : [node],
  );
}
