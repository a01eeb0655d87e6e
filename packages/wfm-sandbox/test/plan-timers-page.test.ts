import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDay } from 'wfm-contract/civil-time';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import { formatLocalDateTime, parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { generateWorld } from '../src/generate-world.js';
import { planTimersPage, type TimersPage } from '../src/plan-timers-page.js';
import { compileFilters } from '../src/shift-filter.js';
import { ShiftGenerator } from '../src/shift-generator.js';
import { indexRangeOf } from '../src/shift-index-range.js';
import { ShiftRow, toFinishedShift } from '../src/shift-row.js';
import { parseTimersQuery, type RangeHeader } from '../src/timers-query.js';

const ROWS = 600;
const lastDay = parseDay('2024-03-31') ?? 0;
const generator = new ShiftGenerator(generateWorld(5, ROWS), {
  seed: 5,
  rows: ROWS,
  firstDay: lastDay - 6,
  lastDay,
});
const scratch = new ShiftRow();
const all: FinishedShift[] = Array.from({ length: ROWS }, (_, i) => {
  generator.fill(i, scratch);
  return toFinishedShift(scratch);
});
const firstId = all[0]?.id ?? 0;
const lastId = all[ROWS - 1]?.id ?? 0;
const firstStart = parseLocalDateTimeSeconds((all[0]?.start_time ?? '').slice(0, 19)) ?? 0;
const lastStart = parseLocalDateTimeSeconds((all[ROWS - 1]?.start_time ?? '').slice(0, 19)) ?? 0;

/** What PostgreSQL would return: every row tested against every filter, then sorted and sliced. */
function bruteForce(query: string): number[] {
  const parsed = parseTimersQuery(new URLSearchParams(query));
  const predicate = compileFilters(parsed.filters);
  const matched = all.flatMap((r, i) => {
    generator.fill(i, scratch);
    return predicate === undefined || predicate(scratch) === true ? [r.id] : [];
  });
  if (parsed.order[0]?.descending === true) matched.reverse();
  const from = parsed.offset ?? 0;
  return matched.slice(from, parsed.limit === undefined ? undefined : from + parsed.limit);
}

async function plan(
  query: string,
  options: { range?: RangeHeader; countWanted?: boolean; rowCap?: number } = {},
): Promise<TimersPage> {
  return planTimersPage(generator, {
    query: parseTimersQuery(new URLSearchParams(query)),
    range: options.range,
    countWanted: options.countWanted ?? false,
    rowCap: options.rowCap,
    ignoreFilters: false,
  });
}

function ids(page: TimersPage): number[] {
  return Array.from({ length: page.count }, (_, p) => all[page.indexAt(p)]?.id ?? -1);
}

const operator = fc.constantFrom('eq', 'gt', 'gte', 'lt', 'lte', 'neq');
const idFilter = fc
  .tuple(operator, fc.integer({ min: firstId - 5, max: lastId + 5 }))
  .map(([op, id]) => `id=${op}.${id}`);
const startFilter = fc
  .tuple(
    operator,
    fc.integer({ min: firstStart - 60, max: lastStart + 60 }),
    fc.option(fc.integer({ min: 1, max: 999 })),
  )
  .map(
    ([op, s, millis]) => `start_time=${op}.${formatLocalDateTime(s)}${millis === null ? '' : `.${millis}`}`,
  );
const otherFilter = fc.constantFrom(
  'comment=is.null',
  'auto_finished=is.false',
  'duration=gt.20000',
  'or=(id.lt.1000100,comment.like.*e*)',
);

describe('planTimersPage', () => {
  it('returns exactly the rows a full scan would, whatever the id and start_time bounds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(idFilter, startFilter, otherFilter), { maxLength: 4 }),
        fc.constantFrom('', 'order=id.asc', 'order=id.desc', 'order=start_time.desc,id.desc'),
        fc.option(fc.integer({ min: 0, max: 50 })),
        fc.option(fc.integer({ min: 0, max: 700 })),
        async (filters, order, offset, limit) => {
          const query = [
            ...filters,
            ...(order === '' ? [] : [order]),
            ...(offset === null ? [] : [`offset=${offset}`]),
            ...(limit === null ? [] : [`limit=${limit}`]),
          ].join('&');
          const expected = bruteForce(query);
          const page = await plan(query);
          if (page.status === 416) expect(expected).toEqual([]);
          else expect(ids(page)).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('captures whole-second start_time bounds and id bounds without a per-row predicate', () => {
    const query = parseTimersQuery(
      new URLSearchParams(
        `start_time=gte.${formatLocalDateTime(firstStart + 3600)}&start_time=lt.${formatLocalDateTime(lastStart)}&id=gt.${firstId + 30}`,
      ),
    );
    const range = indexRangeOf(generator, query.filters);
    expect(range.residual).toEqual([]);
    expect(range.lo).toBeGreaterThan(0);
    expect(range.hi).toBeLessThan(ROWS);
    const fractional = parseTimersQuery(
      new URLSearchParams(`start_time=gte.${formatLocalDateTime(firstStart)}.5`),
    );
    expect(indexRangeOf(generator, fractional.filters).residual).toHaveLength(1);
  });

  it('intersects offset and limit with the Range header and reports the range it serves', async () => {
    const page = await plan('offset=10&limit=100', { range: { from: 50, to: 59 }, countWanted: true });
    expect(ids(page)).toEqual(all.slice(50, 60).map((r) => r.id));
    expect(page.contentRange).toBe(`50-59/${ROWS}`);
    expect((await plan('limit=5')).contentRange).toBe('0-4/*');
  });

  it('answers 416 for an offset at or past the last row, and an empty 200 for offset 0', async () => {
    expect(await plan(`offset=${ROWS}`, { countWanted: true })).toMatchObject({
      status: 416,
      contentRange: `*/${ROWS}`,
    });
    expect(await plan('id=lt.0')).toMatchObject({ status: 200, count: 0, contentRange: '*/*' });
    expect(await plan('offset=3&limit=0')).toMatchObject({ status: 200, count: 0 });
  });

  it('caps the rows silently while Content-Range still tells the truth about the total', async () => {
    const page = await plan('', { rowCap: 25, countWanted: true });
    expect(page.count).toBe(25);
    expect(page.contentRange).toBe(`0-24/${ROWS}`);
  });

  it('counts exactly with a residual filter even when a limit stops the page early', async () => {
    const expected = bruteForce('comment=is.null').length;
    const page = await plan('comment=is.null&limit=3', { countWanted: true });
    expect(page.count).toBe(3);
    expect(page.contentRange).toBe(`0-2/${expected}`);
  });

  it('sorts by any other column, nulls last ascending and first descending', async () => {
    const page = await plan('order=start_location_distance.desc,id.asc&limit=700');
    const distances = ids(page).map((id) => all.find((r) => r.id === id)?.start_location_distance);
    const nulls = distances.filter((d) => d === null).length;
    expect(nulls).toBeGreaterThan(0);
    expect(distances.slice(0, nulls).every((d) => d === null)).toBe(true);
    const known = distances.slice(nulls) as number[];
    expect(known).toEqual([...known].sort((a, b) => b - a));
    const ascending = await plan('order=user_id.asc,id.desc');
    const users = ids(ascending).map((id) => all.find((r) => r.id === id)?.user_id ?? 0);
    expect(users).toEqual([...users].sort((a, b) => a - b));
  });

  it('serves everything in generation order when told to ignore filters', async () => {
    const page = await planTimersPage(generator, {
      query: parseTimersQuery(new URLSearchParams('id=eq.1&limit=1')),
      range: { from: 5, to: 6 },
      countWanted: true,
      rowCap: undefined,
      ignoreFilters: true,
    });
    expect(page.count).toBe(ROWS);
    expect(page.contentRange).toBeUndefined();
  });
});
