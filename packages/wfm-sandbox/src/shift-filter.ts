// Filters on report rows: the parsed PostgREST tree checked against the column types and compiled
// into a predicate with SQL's three-valued logic (a comparison with NULL is unknown, and NOT
// unknown is still unknown; only rows that are definitely true are returned). Text compares by
// code unit (C collation); LocalDateTime compares as a date-time, so `…T08:00:00` equals
// `…T08:00:00.000` and a bare date means midnight.

import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { FilterSyntaxError, type FilterNode } from './postgrest-filter.js';
import { FINISHED_SHIFT_FIELDS } from 'wfm-contract/finished-shift';
import type { ShiftColumn, ShiftRow } from './shift-row.js';

export type ColumnType = 'integer' | 'number' | 'boolean' | 'text' | 'timestamp';

export const SHIFT_COLUMN_TYPES: Readonly<Record<ShiftColumn, ColumnType>> = {
  id: 'integer',
  user_id: 'integer',
  user_login: 'text',
  user_org_level: 'text',
  user_position: 'text',
  user_display_name: 'text',
  division_id: 'integer',
  division_name: 'text',
  region_id: 'integer',
  region_name: 'text',
  shop_id: 'integer',
  shop_sap: 'text',
  shop_locality: 'text',
  shop_address: 'text',
  start_time: 'timestamp',
  start_time_offset: 'integer',
  finish_time: 'timestamp',
  finish_time_offset: 'integer',
  duration: 'integer',
  comment: 'text',
  start_location_lat: 'number',
  start_location_lon: 'number',
  start_location_distance: 'integer',
  start_location_match: 'boolean',
  finish_location_lat: 'number',
  finish_location_lon: 'number',
  finish_location_distance: 'integer',
  finish_location_match: 'boolean',
  auto_finished: 'boolean',
};

export function isShiftColumn(name: string): name is ShiftColumn {
  return (FINISHED_SHIFT_FIELDS as readonly string[]).includes(name);
}

export function checkColumn(name: string): ShiftColumn {
  if (!isShiftColumn(name)) throw new FilterSyntaxError(`column wfm_timers.${name} does not exist`);
  return name;
}

type Value = string | number | boolean | null;
/** Three-valued: null is SQL's unknown. */
export type RowPredicate = (row: ShiftRow) => boolean | null;

export function compileFilter(node: FilterNode): RowPredicate {
  const predicate = compileNode(node);
  return node.negated ? negate(predicate) : predicate;
}

/** The conjunction of several filters (the query's parameters), or undefined for none. */
export function compileFilters(nodes: readonly FilterNode[]): RowPredicate | undefined {
  if (nodes.length === 0) return undefined;
  const predicates = nodes.map(compileFilter);
  return predicates.length === 1 ? predicates[0] : and(predicates);
}

function negate(p: RowPredicate): RowPredicate {
  return (row) => {
    const r = p(row);
    return r === null ? null : !r;
  };
}

function and(ps: readonly RowPredicate[]): RowPredicate {
  return (row) => {
    let unknown = false;
    for (const p of ps) {
      const r = p(row);
      if (r === false) return false;
      if (r === null) unknown = true;
    }
    return unknown ? null : true;
  };
}

function or(ps: readonly RowPredicate[]): RowPredicate {
  return (row) => {
    let unknown = false;
    for (const p of ps) {
      const r = p(row);
      if (r === true) return true;
      if (r === null) unknown = true;
    }
    return unknown ? null : false;
  };
}

function compileNode(node: FilterNode): RowPredicate {
  switch (node.kind) {
    case 'and':
      return and(node.children.map(compileFilter));
    case 'or':
      return or(node.children.map(compileFilter));
    case 'is': {
      const column = checkColumn(node.column);
      if (node.value !== null && SHIFT_COLUMN_TYPES[column] !== 'boolean') {
        throw new FilterSyntaxError(
          `argument of IS ${node.value ? 'TRUE' : 'FALSE'} must be type boolean, not ${column}`,
        );
      }
      const expected = node.value;
      return (row) => row[column] === expected;
    }
    case 'in': {
      const column = checkColumn(node.column);
      const type = SHIFT_COLUMN_TYPES[column];
      const values = node.values.map((v) => coerce(column, type, v));
      return (row) => {
        const x = row[column];
        if (x === null) return null;
        return values.some((v) => compareValues(type, x, v) === 0);
      };
    }
    case 'compare': {
      const column = checkColumn(node.column);
      const type = SHIFT_COLUMN_TYPES[column];
      if (node.operator === 'like' || node.operator === 'ilike') {
        if (type !== 'text')
          throw new FilterSyntaxError(`operator does not exist: ${type} ~~ unknown (${column})`);
        const pattern = likePattern(node.value, node.operator === 'ilike');
        return (row) => {
          const x = row[column];
          return typeof x === 'string' ? pattern.test(x) : null;
        };
      }
      const v = coerce(column, type, node.value);
      const test = OPERATOR_TESTS[node.operator];
      return (row) => {
        const x = row[column];
        return x === null ? null : test(compareValues(type, x, v));
      };
    }
  }
}

const OPERATOR_TESTS: Readonly<Record<'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte', (c: number) => boolean>> = {
  eq: (c) => c === 0,
  neq: (c) => c !== 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
};

function compareValues(type: ColumnType, a: Value, b: Value): number {
  if (type === 'timestamp') return compareLocalDateTimes(String(a), String(b));
  if (a === b) return 0;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

/** Turns filter text into a value of the column's type, as PostgreSQL would (400 otherwise). */
export function coerce(column: string, type: ColumnType, text: string): Value {
  switch (type) {
    case 'integer':
      if (!/^[+-]?\d+$/.test(text.trim())) throw invalidInput('integer', text);
      return Number(text);
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw invalidInput('double precision', text);
      return n;
    }
    case 'boolean': {
      const word = text.trim().toLowerCase();
      if (['true', 't', 'yes', 'y', 'on', '1'].includes(word)) return true;
      if (['false', 'f', 'no', 'n', 'off', '0'].includes(word)) return false;
      throw invalidInput('boolean', text);
    }
    case 'timestamp': {
      const normalised = normaliseLocalDateTime(text);
      if (normalised === undefined) throw invalidInput('timestamp', text);
      return normalised;
    }
    case 'text':
      return text;
    default:
      throw new FilterSyntaxError(`column ${column} has no type`);
  }
}

function invalidInput(type: string, text: string): FilterSyntaxError {
  return new FilterSyntaxError(`invalid input syntax for type ${type}: "${text}"`);
}

const FILTER_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A filter's date-time as `YYYY-MM-DDTHH:MM:SS[.fraction]` (fraction without trailing zeros), or
 * undefined when it is not a real date-time. A zone designator is ignored, as PostgreSQL does for a
 * timestamp without time zone.
 */
export function normaliseLocalDateTime(text: string): string | undefined {
  const m = FILTER_DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const head = `${m[1]}T${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}`;
  if (parseLocalDateTimeSeconds(head) === undefined) return undefined;
  const fraction = (m[5] ?? '').replace(/0+$/, '');
  return fraction === '' ? head : `${head}.${fraction}`;
}

/** Compares two LocalDateTimes (19 characters plus an optional fraction) as instants. */
export function compareLocalDateTimes(a: string, b: string): number {
  if (a.length === 19 && b.length === 19) return a < b ? -1 : a > b ? 1 : 0;
  const headA = a.slice(0, 19);
  const headB = b.slice(0, 19);
  if (headA !== headB) return headA < headB ? -1 : 1;
  const fa = a.slice(20).padEnd(9, '0');
  const fb = b.slice(20).padEnd(9, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

/** PostgREST's like: `*` (and SQL's `%`) match any run, `_` one character. */
function likePattern(pattern: string, caseInsensitive: boolean): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '*' || ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, caseInsensitive ? 'is' : 's');
}
