import { describe, expect, it } from 'vitest';
import {
  FilterSyntaxError,
  parseColumnFilter,
  parseLogicFilter,
  splitTopLevel,
  unquote,
} from '../src/postgrest-filter.js';

describe('parseColumnFilter', () => {
  it('reads every comparison operator', () => {
    for (const operator of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'] as const) {
      expect(parseColumnFilter('duration', `${operator}.3600`)).toEqual({
        kind: 'compare',
        column: 'duration',
        operator,
        value: '3600',
        negated: false,
      });
    }
  });

  it('keeps dots, colons and commas of a top-level value', () => {
    expect(parseColumnFilter('start_time', 'gte.2024-05-01T08:30:00.5')).toMatchObject({
      operator: 'gte',
      value: '2024-05-01T08:30:00.5',
    });
    expect(parseColumnFilter('comment', 'eq.a,b.c')).toMatchObject({ value: 'a,b.c' });
  });

  it('reads not. as a negation', () => {
    expect(parseColumnFilter('id', 'not.eq.5')).toMatchObject({ kind: 'compare', negated: true, value: '5' });
    expect(parseColumnFilter('comment', 'not.is.null')).toEqual({
      kind: 'is',
      column: 'comment',
      value: null,
      negated: true,
    });
  });

  it('reads in-lists with quoted members holding commas and parentheses', () => {
    expect(parseColumnFilter('comment', 'in.("a,b",c,"say \\"hi\\"","(x)")')).toEqual({
      kind: 'in',
      column: 'comment',
      values: ['a,b', 'c', 'say "hi"', '(x)'],
      negated: false,
    });
    expect(parseColumnFilter('id', 'in.()')).toMatchObject({ kind: 'in', values: [] });
  });

  it('reads is.null, is.true, is.false and is.unknown in any case', () => {
    expect(parseColumnFilter('auto_finished', 'is.TRUE')).toMatchObject({ kind: 'is', value: true });
    expect(parseColumnFilter('auto_finished', 'is.false')).toMatchObject({ kind: 'is', value: false });
    expect(parseColumnFilter('start_location_match', 'is.unknown')).toMatchObject({
      kind: 'is',
      value: null,
    });
  });

  it('refuses unknown operators, a missing value and malformed lists', () => {
    expect(() => parseColumnFilter('id', 'between.1')).toThrow(FilterSyntaxError);
    expect(() => parseColumnFilter('id', 'eq')).toThrow(/expected operator.value/);
    expect(() => parseColumnFilter('id', 'in.1,2')).toThrow(/parentheses/);
    expect(() => parseColumnFilter('id', 'is.maybe')).toThrow(/null, true, false/);
    expect(() => parseColumnFilter('id', 'in.("a,b)')).toThrow(/unbalanced/);
  });
});

describe('parseLogicFilter', () => {
  it('reads a flat and=(…) group', () => {
    expect(parseLogicFilter('and', '(id.gt.5,duration.lt.60)')).toEqual({
      kind: 'and',
      negated: false,
      children: [
        { kind: 'compare', column: 'id', operator: 'gt', value: '5', negated: false },
        { kind: 'compare', column: 'duration', operator: 'lt', value: '60', negated: false },
      ],
    });
  });

  it('reads nested and negated groups and negated conditions', () => {
    const tree = parseLogicFilter(
      'not.or',
      '(id.not.eq.1,and(comment.is.null,not.or(duration.gt.1,id.in.(2,3))))',
    );
    expect(tree).toEqual({
      kind: 'or',
      negated: true,
      children: [
        { kind: 'compare', column: 'id', operator: 'eq', value: '1', negated: true },
        {
          kind: 'and',
          negated: false,
          children: [
            { kind: 'is', column: 'comment', value: null, negated: false },
            {
              kind: 'or',
              negated: true,
              children: [
                { kind: 'compare', column: 'duration', operator: 'gt', value: '1', negated: false },
                { kind: 'in', column: 'id', values: ['2', '3'], negated: false },
              ],
            },
          ],
        },
      ],
    });
  });

  it('unquotes values inside a tree, where commas and dots would split them', () => {
    expect(parseLogicFilter('or', '(comment.eq."a, b.",start_time.gte."2024-05-01T00:00:00")')).toMatchObject(
      {
        children: [{ value: 'a, b.' }, { value: '2024-05-01T00:00:00' }],
      },
    );
  });

  it('refuses a tree without parentheses, an empty condition or unbalanced parentheses', () => {
    expect(() => parseLogicFilter('and', 'id.eq.1')).toThrow(FilterSyntaxError);
    expect(() => parseLogicFilter('and', '()')).toThrow(/empty condition/);
    expect(() => parseLogicFilter('and', '(id.eq.1,)')).toThrow(/empty condition/);
    expect(() => parseLogicFilter('and', '(id.eq.1))')).toThrow(/unbalanced/);
    expect(() => parseLogicFilter('or', '(justacolumn)')).toThrow(/column.operator.value/);
  });
});

describe('splitTopLevel and unquote', () => {
  it('splits on commas outside quotes and parentheses only', () => {
    expect(splitTopLevel('a,"b,c",d(e,f),"g\\",h"')).toEqual(['a', '"b,c"', 'd(e,f)', '"g\\",h"']);
  });

  it('unquotes backslash escapes and leaves unquoted text alone', () => {
    expect(unquote('"a\\"b\\\\c"')).toBe('a"b\\c');
    expect(unquote('plain')).toBe('plain');
    expect(unquote('"')).toBe('"');
  });
});
