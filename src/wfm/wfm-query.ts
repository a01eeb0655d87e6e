// Query strings of the WFM API: the list filters of categories and divisions (spec 4.1, 4.2), the
// configurable time-window filter and the PostgREST-style order/paging parameters of the report.
// Values are URL-encoded; list values keep literal commas between encoded items, as the spec's
// "comma-separated" reads.

import type { UtcWindow } from '../domain/period.js';
import type { CategoryListQuery } from 'wfm-contract/category';
import type { DivisionListQuery } from 'wfm-contract/division';

export type QueryPairs = ReadonlyArray<readonly [string, string]>;

/** `a=1&b=x%20y`; pairs with an empty name are dropped. */
export function encodeQuery(pairs: QueryPairs): string {
  return pairs
    .filter(([name]) => name !== '')
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
}

/** Joins query fragments, skipping empty ones. */
export function joinQuery(...fragments: readonly string[]): string {
  return fragments.filter((f) => f !== '').join('&');
}

/** A path with its query (`?` only when there is one). */
export function withQuery(path: string, query: string): string {
  return query === '' ? path : `${path}?${query}`;
}

function encodeList(values: readonly (string | number)[]): string {
  return values.map((v) => encodeURIComponent(String(v))).join(',');
}

/** Spec 4.1: active, quick, notEmpty; absent members are not sent. */
export function categoryListQuery(query: CategoryListQuery = {}): string {
  const pairs: [string, string][] = [];
  if (query.active !== undefined) pairs.push(['active', String(query.active)]);
  if (query.quick !== undefined) pairs.push(['quick', String(query.quick)]);
  if (query.notEmpty !== undefined) pairs.push(['notEmpty', String(query.notEmpty)]);
  return encodeQuery(pairs);
}

/** Spec 4.2: every list-divisions parameter; lists are comma-separated; an empty `ids` is not sent. */
export function divisionListQuery(query: DivisionListQuery = {}): string {
  const parts: string[] = [];
  if (query.ids !== undefined && query.ids.length > 0) parts.push(`ids=${encodeList(query.ids)}`);
  const pairs: [string, string][] = [];
  if (query.nameLike !== undefined) pairs.push(['nameLike', query.nameLike]);
  if (query.userId !== undefined) pairs.push(['userId', String(query.userId)]);
  if (query.businessDirId !== undefined) pairs.push(['businessDirId', String(query.businessDirId)]);
  if (query.search !== undefined) pairs.push(['search', query.search]);
  if (query.shopId !== undefined) pairs.push(['shopId', String(query.shopId)]);
  if (query.active !== undefined) pairs.push(['active', String(query.active)]);
  if (query.withDirs !== undefined) pairs.push(['withDirs', String(query.withDirs)]);
  parts.push(encodeQuery(pairs));
  parts.push(fieldsQuery(query.fields));
  return joinQuery(...parts);
}

/** Spec 4.2: `fields` of list and get division; absent: the server's default (dirs); empty: none. */
export function fieldsQuery(fields: readonly string[] | undefined): string {
  return fields === undefined ? '' : `fields=${encodeList(fields)}`;
}

/**
 * The time-window filter from WFM_WINDOW_QUERY: `{from}` and `{to}` become the URL-encoded bounds
 * of start_time; the rest of the template is sent as written. Empty template or no window: ''.
 */
export function windowQuery(template: string, window: UtcWindow | undefined): string {
  if (template.trim() === '' || window === undefined) return '';
  return template
    .replaceAll('{from}', encodeURIComponent(window.startGte))
    .replaceAll('{to}', encodeURIComponent(window.startLt));
}

/** Where one report request starts and how much it asks for. */
export interface ReportCursor {
  /** Resume or keyset position: only rows with a greater id. */
  readonly afterId?: number;
  readonly offset?: number;
  readonly limit?: number;
}

/** The report query: window filter, then `order=id.asc` always, then the cursor. */
export function reportQuery(window: string, cursor: ReportCursor): string {
  const parts = [window, 'order=id.asc'];
  if (cursor.afterId !== undefined) parts.push(`id=gt.${cursor.afterId}`);
  if (cursor.limit !== undefined) parts.push(`limit=${cursor.limit}`);
  if (cursor.offset !== undefined) parts.push(`offset=${cursor.offset}`);
  return joinQuery(...parts);
}
