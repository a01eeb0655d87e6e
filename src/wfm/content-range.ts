// Content-Range of a PostgREST-style answer: `0-999/5000`, `*/0` (nothing in range), `0-999/*`
// (total unknown), optionally with a unit (`items 0-999/5000`). The total is what makes a server
// row cap visible: a page can be short because the data ended or because the server cut it.

export interface ContentRange {
  /** First and last row index of this answer; undefined for `*`. */
  readonly first: number | undefined;
  readonly last: number | undefined;
  /** Rows matching the request without limit/offset; undefined when the server did not count. */
  readonly total: number | undefined;
}

const PATTERN = /^\s*(?:[a-z]+\s+)?(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i;

/** Undefined when the header is absent or unreadable (then no completeness check is possible). */
export function parseContentRange(value: string | undefined): ContentRange | undefined {
  if (value === undefined) return undefined;
  const m = PATTERN.exec(value);
  if (!m) return undefined;
  const num = (s: string | undefined): number | undefined =>
    s === undefined || s === '*' ? undefined : Number(s);
  const first = num(m[1]);
  const last = num(m[2]);
  if (first !== undefined && last !== undefined && last < first) return undefined;
  return { first, last, total: num(m[3]) };
}

/**
 * How many rows one answer must hold: all matching rows from `offset` on, at most `limit`.
 * Undefined when the server sent no total.
 */
export function expectedRows(
  range: ContentRange | undefined,
  offset: number,
  limit: number | undefined,
): number | undefined {
  if (range?.total === undefined) return undefined;
  const remaining = Math.max(0, range.total - offset);
  return limit === undefined ? remaining : Math.min(limit, remaining);
}
