import { describe, expect, it } from 'vitest';
import {
  categoryListQuery,
  divisionListQuery,
  encodeQuery,
  fieldsQuery,
  reportQuery,
  windowQuery,
  withQuery,
} from '../../src/wfm/wfm-query.js';

const window = { startGte: '2024-04-30T10:00:00', startLt: '2024-05-02T12:00:00' };

describe('categoryListQuery', () => {
  it('sends nothing when no filter is set', () => {
    expect(categoryListQuery()).toBe('');
  });

  it('sends active, quick and notEmpty as true/false, false included', () => {
    expect(categoryListQuery({ active: true, quick: false, notEmpty: true })).toBe(
      'active=true&quick=false&notEmpty=true',
    );
  });
});

describe('divisionListQuery', () => {
  it('sends every parameter of the spec, lists comma-separated', () => {
    expect(
      divisionListQuery({
        ids: [3, 1, 2],
        nameLike: 'Север',
        userId: 7,
        businessDirId: 8,
        search: 'Ann & Bob',
        shopId: 9,
        active: false,
        withDirs: true,
        fields: ['dirs', 'regions'],
      }),
    ).toBe(
      'ids=3,1,2&nameLike=%D0%A1%D0%B5%D0%B2%D0%B5%D1%80&userId=7&businessDirId=8&search=Ann%20%26%20Bob&shopId=9&active=false&withDirs=true&fields=dirs,regions',
    );
  });

  it('leaves out absent lists and an empty ids, but sends an empty fields (no extra members)', () => {
    expect(divisionListQuery({ ids: [] })).toBe('');
    expect(divisionListQuery({ fields: [] })).toBe('fields=');
    expect(divisionListQuery({ active: true })).toBe('active=true');
  });

  it('encodes characters that would change the query: & = # + % ? and commas inside a value', () => {
    expect(divisionListQuery({ nameLike: 'a&b=c#d+e%f?g,h' })).toBe('nameLike=a%26b%3Dc%23d%2Be%25f%3Fg%2Ch');
  });
});

describe('fieldsQuery', () => {
  it('sends fields comma-separated, or nothing', () => {
    expect(fieldsQuery(['dirs', 'dirsWithBusinessDirs'])).toBe('fields=dirs,dirsWithBusinessDirs');
    expect(fieldsQuery(undefined)).toBe('');
    expect(fieldsQuery([])).toBe('fields=');
  });
});

describe('windowQuery', () => {
  it('fills the default PostgREST template with URL-encoded bounds', () => {
    expect(windowQuery('start_time=gte.{from}&start_time=lt.{to}', window)).toBe(
      'start_time=gte.2024-04-30T10%3A00%3A00&start_time=lt.2024-05-02T12%3A00%3A00',
    );
  });

  it('fills a custom template, each placeholder wherever and however often it appears', () => {
    expect(windowQuery('and=(start_time.gte.{from},start_time.lt.{to})&since={from}', window)).toBe(
      'and=(start_time.gte.2024-04-30T10%3A00%3A00,start_time.lt.2024-05-02T12%3A00%3A00)&since=2024-04-30T10%3A00%3A00',
    );
  });

  it('sends no filter for an empty template or without a window', () => {
    expect(windowQuery('', window)).toBe('');
    expect(windowQuery('  ', window)).toBe('');
    expect(windowQuery('start_time=gte.{from}', undefined)).toBe('');
  });
});

describe('reportQuery', () => {
  const w = 'start_time=gte.A';

  it('always orders by id', () => {
    expect(reportQuery('', {})).toBe('order=id.asc');
    expect(reportQuery(w, {})).toBe('start_time=gte.A&order=id.asc');
  });

  it('builds keyset pages and resumes with id=gt.<last>', () => {
    expect(reportQuery(w, { limit: 1000 })).toBe('start_time=gte.A&order=id.asc&limit=1000');
    expect(reportQuery(w, { afterId: 41, limit: 1000 })).toBe(
      'start_time=gte.A&order=id.asc&id=gt.41&limit=1000',
    );
    expect(reportQuery(w, { afterId: 41 })).toBe('start_time=gte.A&order=id.asc&id=gt.41');
  });

  it('builds offset pages', () => {
    expect(reportQuery(w, { offset: 0, limit: 500 })).toBe(
      'start_time=gte.A&order=id.asc&limit=500&offset=0',
    );
    expect(reportQuery(w, { offset: 1500, limit: 500 })).toBe(
      'start_time=gte.A&order=id.asc&limit=500&offset=1500',
    );
  });
});

describe('encodeQuery and withQuery', () => {
  it('encodes names and values and drops nameless pairs', () => {
    expect(
      encodeQuery([
        ['a b', 'c/d'],
        ['', 'x'],
        ['e', ''],
      ]),
    ).toBe('a%20b=c%2Fd&e=');
  });

  it('adds "?" only when there is a query', () => {
    expect(withQuery('/v1/x', '')).toBe('/v1/x');
    expect(withQuery('/v1/x', 'a=1')).toBe('/v1/x?a=1');
  });
});
