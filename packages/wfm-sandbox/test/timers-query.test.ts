import { describe, expect, it } from 'vitest';
import { FilterSyntaxError } from '../src/postgrest-filter.js';
import { parseRangeHeader, parseTimersQuery, prefersCount } from '../src/timers-query.js';

const parse = (query: string) => parseTimersQuery(new URLSearchParams(query));

describe('parseTimersQuery', () => {
  it('keeps repeated filters on one column as separate conjuncts', () => {
    const q = parse('start_time=gte.2024-05-01T00:00:00&start_time=lt.2024-05-02T00:00:00');
    expect(q.filters).toHaveLength(2);
    expect(q.filters.map((f) => (f.kind === 'compare' ? f.operator : f.kind))).toEqual(['gte', 'lt']);
  });

  it('reads order with directions, null placement and PostgreSQL defaults', () => {
    expect(parse('order=id.desc,user_id,comment.asc.nullsfirst').order).toEqual([
      { column: 'id', descending: true, nullsFirst: true },
      { column: 'user_id', descending: false, nullsFirst: false },
      { column: 'comment', descending: false, nullsFirst: true },
    ]);
  });

  it('reads limit, offset and select', () => {
    expect(parse('limit=10&offset=20&select=id,start_time')).toMatchObject({
      limit: 10,
      offset: 20,
      select: ['id', 'start_time'],
    });
    expect(parse('select=*').select).toBeUndefined();
  });

  it('refuses unknown columns, bad counts and unknown order modifiers', () => {
    expect(() => parse('colour=eq.red')).toThrow(/column wfm_timers.colour does not exist/);
    expect(() => parse('limit=-1')).toThrow(FilterSyntaxError);
    expect(() => parse('offset=1.5')).toThrow(FilterSyntaxError);
    expect(() => parse('order=id.sideways')).toThrow(/unknown modifier/);
    expect(() => parse('order=nope.asc')).toThrow(/does not exist/);
    expect(() => parse('select=id,nope')).toThrow(/does not exist/);
  });
});

describe('parseRangeHeader', () => {
  it('reads closed, open and items= ranges', () => {
    expect(parseRangeHeader('0-999')).toEqual({ from: 0, to: 999 });
    expect(parseRangeHeader('items=10-19')).toEqual({ from: 10, to: 19 });
    expect(parseRangeHeader('100-')).toEqual({ from: 100, to: undefined });
  });

  it('ignores what it cannot read and calls an inverted range unsatisfiable', () => {
    expect(parseRangeHeader(undefined)).toBeUndefined();
    expect(parseRangeHeader('bytes=a-b')).toBeUndefined();
    expect(parseRangeHeader('5-2')).toBe('unsatisfiable');
  });
});

describe('prefersCount', () => {
  it('recognises count=exact among other preferences', () => {
    expect(prefersCount('count=exact')).toBe(true);
    expect(prefersCount('return=representation, count=planned')).toBe(true);
    expect(prefersCount('return=minimal')).toBe(false);
    expect(prefersCount(undefined)).toBe(false);
  });
});
