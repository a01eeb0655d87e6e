// The query of GET /v1/connector/rpc/wfm_timers, PostgREST-style: filters on every column
// (repeated parameters on one column combine with AND), `and`/`or` trees, `order`, `limit`,
// `offset`, `select`; plus the `Range` and `Prefer: count=exact` headers.

import {
  FilterSyntaxError,
  isLogicKey,
  parseColumnFilter,
  parseLogicFilter,
  type FilterNode,
} from './postgrest-filter.js';
import { checkColumn } from './shift-filter.js';
import type { ShiftColumn } from './shift-row.js';

export interface OrderTerm {
  readonly column: ShiftColumn;
  readonly descending: boolean;
  /** PostgreSQL's default: NULLS LAST ascending, NULLS FIRST descending. */
  readonly nullsFirst: boolean;
}

export interface TimersQuery {
  readonly filters: readonly FilterNode[];
  readonly order: readonly OrderTerm[];
  readonly limit: number | undefined;
  readonly offset: number | undefined;
  /** Columns to return, in order; undefined for all. */
  readonly select: readonly ShiftColumn[] | undefined;
}

/** Parses the query string; throws FilterSyntaxError (answered with 400). */
export function parseTimersQuery(params: URLSearchParams): TimersQuery {
  const filters: FilterNode[] = [];
  let order: OrderTerm[] = [];
  let limit: number | undefined;
  let offset: number | undefined;
  let select: ShiftColumn[] | undefined;
  for (const [key, value] of params) {
    if (key === 'order') order = parseOrder(value);
    else if (key === 'limit') limit = parseCount('limit', value);
    else if (key === 'offset') offset = parseCount('offset', value);
    else if (key === 'select') select = parseSelect(value);
    else if (isLogicKey(key)) filters.push(parseLogicFilter(key, value));
    else filters.push(parseColumnFilter(checkColumn(key), value));
  }
  return { filters, order, limit, offset, select };
}

function parseCount(name: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new FilterSyntaxError(`"${name}" must be a non-negative integer, got "${value}"`);
  return Number(value);
}

function parseOrder(value: string): OrderTerm[] {
  return value.split(',').map((term) => {
    const [name = '', ...modifiers] = term.trim().split('.');
    const column = checkColumn(name);
    let descending = false;
    let nullsFirst: boolean | undefined;
    for (const modifier of modifiers) {
      if (modifier === 'asc' || modifier === 'desc') descending = modifier === 'desc';
      else if (modifier === 'nullsfirst' || modifier === 'nullslast') nullsFirst = modifier === 'nullsfirst';
      else throw new FilterSyntaxError(`"failed to parse order (${value})": unknown modifier "${modifier}"`);
    }
    return { column, descending, nullsFirst: nullsFirst ?? descending };
  });
}

function parseSelect(value: string): ShiftColumn[] | undefined {
  const names = value.split(',').map((n) => n.trim());
  if (names.includes('*')) return undefined;
  return names.map(checkColumn);
}

export interface RangeHeader {
  readonly from: number;
  /** Inclusive; undefined for an open range (`Range: 100-`). */
  readonly to: number | undefined;
}

/**
 * `Range: 0-999` (also `items=0-999`). Undefined when absent or unreadable, which PostgREST also
 * ignores; a range whose end is before its start is unsatisfiable (416).
 */
export function parseRangeHeader(header: string | undefined): RangeHeader | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(?:items=)?(\d+)-(\d*)\s*$/.exec(header);
  if (!m) return undefined;
  const from = Number(m[1]);
  const to = m[2] === '' || m[2] === undefined ? undefined : Number(m[2]);
  if (to !== undefined && to < from) return 'unsatisfiable';
  return { from, to };
}

/** True when `Prefer` asks for a count (exact, planned or estimated: the sandbox always counts exactly). */
export function prefersCount(header: string | undefined): boolean {
  return header !== undefined && /\bcount=(exact|planned|estimated)\b/.test(header);
}
