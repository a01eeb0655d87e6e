import { describe, expect, it } from 'vitest';
import { parseColumnFilter, parseLogicFilter } from '../src/postgrest-filter.js';
import {
  compareLocalDateTimes,
  compileFilter,
  compileFilters,
  normaliseLocalDateTime,
} from '../src/shift-filter.js';
import { ShiftRow } from '../src/shift-row.js';

function row(changes: Partial<Record<string, unknown>> = {}): ShiftRow {
  const r = new ShiftRow();
  r.id = 10;
  r.duration = 3600;
  r.comment = null;
  r.user_login = 'anna';
  r.auto_finished = false;
  r.start_location_match = null;
  r.startSecond = 1_714_552_200; // 2024-05-01T08:30:00
  Object.assign(r, changes);
  return r;
}

const test = (column: string, expression: string, r: ShiftRow) =>
  compileFilter(parseColumnFilter(column, expression))(r);

describe('compileFilter', () => {
  it('compares integers numerically, not as text', () => {
    expect(test('duration', 'gt.900', row())).toBe(true);
    expect(test('duration', 'lt.10000', row())).toBe(true);
    expect(test('duration', 'eq.3600', row())).toBe(true);
    expect(test('duration', 'neq.3600', row())).toBe(false);
  });

  it('treats a comparison with null as unknown, and so is its negation (SQL)', () => {
    expect(test('comment', 'eq.x', row())).toBeNull();
    expect(test('comment', 'neq.x', row())).toBeNull();
    expect(test('comment', 'not.eq.x', row())).toBeNull();
    expect(test('comment', 'is.null', row())).toBe(true);
    expect(test('comment', 'not.is.null', row())).toBe(false);
  });

  it('tests booleans with is.true / is.false and eq', () => {
    expect(test('auto_finished', 'is.false', row())).toBe(true);
    expect(test('auto_finished', 'eq.true', row())).toBe(false);
    expect(test('start_location_match', 'is.false', row())).toBe(false);
    expect(test('start_location_match', 'is.unknown', row())).toBe(true);
  });

  it('matches in-lists and like / ilike with * wildcards', () => {
    expect(test('id', 'in.(1,10,100)', row())).toBe(true);
    expect(test('id', 'not.in.(1,10,100)', row())).toBe(false);
    expect(test('user_login', 'like.an*', row())).toBe(true);
    expect(test('user_login', 'like.AN*', row())).toBe(false);
    expect(test('user_login', 'ilike.AN*', row())).toBe(true);
    expect(test('comment', 'like.*', row())).toBeNull();
  });

  it('compares start_time as a date-time: fractions, bare dates and zone suffixes', () => {
    expect(test('start_time', 'eq.2024-05-01T08:30:00.000', row())).toBe(true);
    expect(test('start_time', 'gt.2024-05-01', row())).toBe(true);
    expect(test('start_time', 'lt.2024-05-01T08:30:00.5', row())).toBe(true);
    expect(test('start_time', 'gte.2024-05-01T08:30:00Z', row())).toBe(true);
    expect(
      test('start_time', 'gt.2024-05-01T08:30:00', row({ startFractionDigits: 1, startFraction: 1 })),
    ).toBe(true);
  });

  it('combines trees with three-valued and / or', () => {
    const and = compileFilter(parseLogicFilter('and', '(id.eq.10,comment.eq.x)'));
    const or = compileFilter(parseLogicFilter('or', '(id.eq.10,comment.eq.x)'));
    const orFalse = compileFilter(parseLogicFilter('or', '(id.eq.11,comment.eq.x)'));
    expect(and(row())).toBeNull();
    expect(or(row())).toBe(true);
    expect(orFalse(row())).toBeNull();
    expect(compileFilter(parseLogicFilter('not.and', '(id.eq.10,duration.eq.1)'))(row())).toBe(true);
  });

  it('refuses values of the wrong type and operators the column has not', () => {
    expect(() => test('duration', 'eq.1.5', row())).toThrow(/type integer: "1.5"/);
    expect(() => test('start_location_lat', 'gt.north', row())).toThrow(/double precision/);
    expect(() => test('auto_finished', 'eq.maybe', row())).toThrow(/boolean/);
    expect(() => test('start_time', 'gt.2024-02-30', row())).toThrow(/timestamp/);
    expect(() => test('duration', 'like.1*', row())).toThrow(/operator does not exist/);
    expect(() => test('duration', 'is.true', row())).toThrow(/must be type boolean/);
    expect(() => test('nope', 'eq.1', row())).toThrow(/does not exist/);
  });
});

describe('compileFilters', () => {
  it('is undefined without filters and the conjunction of several', () => {
    expect(compileFilters([])).toBeUndefined();
    const both = compileFilters([parseColumnFilter('id', 'gt.5'), parseColumnFilter('id', 'lt.20')]);
    expect(both?.(row())).toBe(true);
    expect(both?.(row({ id: 30 }))).toBe(false);
  });
});

describe('normaliseLocalDateTime and compareLocalDateTimes', () => {
  it('normalises dates, spaces, zones and trailing zeros of fractions', () => {
    expect(normaliseLocalDateTime('2024-05-01')).toBe('2024-05-01T00:00:00');
    expect(normaliseLocalDateTime('2024-05-01 08:30')).toBe('2024-05-01T08:30:00');
    expect(normaliseLocalDateTime('2024-05-01T08:30:00.120+05:45')).toBe('2024-05-01T08:30:00.12');
    expect(normaliseLocalDateTime('2024-05-01T08:30:00.000')).toBe('2024-05-01T08:30:00');
    expect(normaliseLocalDateTime('2024-13-01')).toBeUndefined();
    expect(normaliseLocalDateTime('yesterday')).toBeUndefined();
  });

  it('orders by instant whatever the number of fraction digits', () => {
    expect(compareLocalDateTimes('2024-05-01T08:30:00', '2024-05-01T08:30:00')).toBe(0);
    expect(compareLocalDateTimes('2024-05-01T08:30:00.5', '2024-05-01T08:30:00.49')).toBe(1);
    expect(compareLocalDateTimes('2024-05-01T08:30:00.500', '2024-05-01T08:30:00.5')).toBe(0);
    expect(compareLocalDateTimes('2024-05-01T08:30:00.999999999', '2024-05-01T08:30:01')).toBe(-1);
  });
});
