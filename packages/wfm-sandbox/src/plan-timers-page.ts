// Decides which rows one wfm_timers request returns, before any byte is sent (Content-Range and
// 416 go in the headers). The common requests — id/start_time bounds, natural order, a limit — are
// index arithmetic. Other filters scan the candidate range once into a list of indexes (4 bytes a
// match, never row objects), stopping early when no count is asked for; an order on other columns
// sorts that list.

import {
  compileFilters,
  compareLocalDateTimes,
  SHIFT_COLUMN_TYPES,
  type RowPredicate,
} from './shift-filter.js';
import type { ShiftGenerator } from './shift-generator.js';
import { indexRangeOf } from './shift-index-range.js';
import { ShiftRow } from './shift-row.js';
import type { OrderTerm, RangeHeader, TimersQuery } from './timers-query.js';

export interface TimersPage {
  readonly status: 200 | 416;
  /** Undefined when the upstream pretends not to speak PostgREST (ignoreFilters). */
  readonly contentRange: string | undefined;
  /** Generator indexes of the page's rows, in response order. */
  readonly count: number;
  readonly indexAt: (position: number) => number;
}

export interface TimersPageRequest {
  readonly query: TimersQuery;
  readonly range: RangeHeader | undefined;
  readonly countWanted: boolean;
  readonly rowCap: number | undefined;
  readonly ignoreFilters: boolean;
}

const SCAN_YIELD_EVERY = 20_000;

export async function planTimersPage(
  generator: ShiftGenerator,
  request: TimersPageRequest,
): Promise<TimersPage> {
  const { query, range, countWanted, rowCap } = request;
  if (request.ignoreFilters) {
    const count = Math.min(generator.rows, rowCap ?? Infinity);
    return { status: 200, contentRange: undefined, count, indexAt: (p) => p };
  }

  const { lo, hi, residual } = indexRangeOf(generator, query.filters);
  const predicate = compileFilters(residual);
  const direction = naturalDirection(query.order);

  // The window asked for: offset/limit intersected with the Range header.
  let from = query.offset ?? 0;
  let to = query.limit === undefined ? Infinity : from + query.limit;
  if (range !== undefined) {
    from = Math.max(from, range.from);
    to = Math.min(to, range.to === undefined ? Infinity : range.to + 1);
  }

  let matched: number;
  let total: number | undefined;
  let indexAt: (position: number) => number;
  if (predicate === undefined && direction !== undefined) {
    matched = hi - lo;
    total = matched;
    indexAt = direction === 'asc' ? (p) => lo + p : (p) => hi - 1 - p;
  } else {
    const enough = direction !== undefined && !countWanted ? to : Infinity;
    const list = await scan(generator, lo, hi, direction === 'desc', predicate, enough);
    if (direction === undefined) sortByOrder(generator, list, query.order);
    matched = list.length;
    total = list.complete ? matched : undefined;
    indexAt = (p) => list.at(p);
  }

  const end = Math.min(to, matched, from + (rowCap ?? Infinity));
  const totalText = countWanted && total !== undefined ? String(total) : '*';
  if (from > 0 && from >= matched) {
    return { status: 416, contentRange: `*/${totalText}`, count: 0, indexAt };
  }
  const count = Math.max(0, end - from);
  const contentRange = count === 0 ? `*/${totalText}` : `${from}-${from + count - 1}/${totalText}`;
  return { status: 200, contentRange, count, indexAt: (p) => indexAt(from + p) };
}

/** asc/desc when the order is the generation order (id and start_time only, one direction). */
function naturalDirection(order: readonly OrderTerm[]): 'asc' | 'desc' | undefined {
  if (order.length === 0) return 'asc';
  const natural = order.every((t) => t.column === 'id' || t.column === 'start_time');
  if (!natural) return undefined;
  if (order.every((t) => !t.descending)) return 'asc';
  if (order.every((t) => t.descending)) return 'desc';
  return undefined;
}

class IndexList {
  private items = new Int32Array(1024);
  length = 0;
  complete = true;

  push(index: number): void {
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = index;
  }

  at(position: number): number {
    return this.items[position] ?? 0;
  }

  view(): Int32Array {
    return this.items.subarray(0, this.length);
  }
}

async function scan(
  generator: ShiftGenerator,
  lo: number,
  hi: number,
  descending: boolean,
  predicate: RowPredicate | undefined,
  enough: number,
): Promise<IndexList> {
  const list = new IndexList();
  const row = new ShiftRow();
  for (let k = 0; k < hi - lo; k++) {
    // Long scans yield so that other requests (and close()) are served meanwhile.
    if (k % SCAN_YIELD_EVERY === SCAN_YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
    if (list.length >= enough) {
      list.complete = false;
      break;
    }
    const index = descending ? hi - 1 - k : lo + k;
    if (predicate !== undefined) {
      generator.fill(index, row);
      if (predicate(row) !== true) continue;
    }
    list.push(index);
  }
  return list;
}

type Key = string | number | boolean | null;

function sortByOrder(generator: ShiftGenerator, list: IndexList, order: readonly OrderTerm[]): void {
  const row = new ShiftRow();
  const indexes = list.view();
  // One key array per order term, aligned with `indexes`; the sort permutes positions.
  const keys: Key[][] = order.map(() => new Array<Key>(indexes.length));
  indexes.forEach((index, position) => {
    generator.fill(index, row);
    order.forEach((term, t) => {
      const column = keys[t];
      if (column !== undefined) column[position] = row[term.column];
    });
  });
  const positions = Array.from(indexes.keys()).sort((a, b) => {
    for (let t = 0; t < order.length; t++) {
      const term = order[t];
      const column = keys[t];
      if (term === undefined || column === undefined) continue;
      const c = compareKeys(term, column[a] ?? null, column[b] ?? null);
      if (c !== 0) return c;
    }
    return (indexes[a] ?? 0) - (indexes[b] ?? 0);
  });
  indexes.set(positions.map((p) => indexes[p] ?? 0));
}

function compareKeys(term: OrderTerm, a: Key, b: Key): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === term.nullsFirst ? -1 : 1;
  }
  let c: number;
  if (SHIFT_COLUMN_TYPES[term.column] === 'timestamp') c = compareLocalDateTimes(String(a), String(b));
  else c = a < b ? -1 : a > b ? 1 : 0;
  return term.descending ? -c : c;
}
