import { describe, expect, it } from 'vitest';
import { expectedRows, parseContentRange } from '../../src/wfm/content-range.js';
import { headerValue } from '../../src/wfm/response-body.js';

describe('parseContentRange', () => {
  it.each([
    ['0-999/5000', { first: 0, last: 999, total: 5000 }],
    ['items 10-19/20', { first: 10, last: 19, total: 20 }],
    ['*/0', { first: undefined, last: undefined, total: 0 }],
    ['0-24/*', { first: 0, last: 24, total: undefined }],
  ])('reads %j', (header, range) => {
    expect(parseContentRange(header)).toEqual(range);
  });

  it('reads the first of repeated headers', () => {
    const headers = { 'content-range': ['5-5/6', '0-0/1'] };
    expect(parseContentRange(headerValue(headers, 'content-range'))).toEqual({ first: 5, last: 5, total: 6 });
  });

  it.each([undefined, '', 'bytes', '9-1/10', '0-1', 'a-b/c'])('ignores %j', (header) => {
    expect(parseContentRange(header)).toBeUndefined();
  });
});

describe('expectedRows', () => {
  it('expects every matching row when no limit was asked', () => {
    expect(expectedRows({ first: 0, last: 999, total: 5000 }, 0, undefined)).toBe(5000);
  });

  it('expects at most the limit, and only what is left after the offset', () => {
    expect(expectedRows({ first: 0, last: 999, total: 5000 }, 0, 1000)).toBe(1000);
    expect(expectedRows({ first: 4500, last: 4999, total: 5000 }, 4500, 1000)).toBe(500);
    expect(expectedRows({ first: undefined, last: undefined, total: 5000 }, 6000, 1000)).toBe(0);
  });

  it('expects nothing in particular without a total', () => {
    expect(expectedRows({ first: 0, last: 9, total: undefined }, 0, 10)).toBeUndefined();
    expect(expectedRows(undefined, 0, 10)).toBeUndefined();
  });
});
