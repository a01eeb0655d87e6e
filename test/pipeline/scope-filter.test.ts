import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import { formatDateTime } from 'wfm-contract/civil-time';
import type { RowFilter } from '../../src/domain/row-filter.js';
import { ScopeFilter } from '../../src/pipeline/scope-filter.js';
import { ShiftPipeline } from '../../src/pipeline/shift-pipeline.js';
import { shiftRow, type RawRow } from './support/shift-rows.js';

const MAY = { from: '2024-05-01', to: '2024-05-31' };

function place(division: number, region: number, shop: number): FinishedShift {
  return { division_id: division, region_id: region, shop_id: shop } as FinishedShift;
}

/** A valid row of 10 May 2024 in the given division, region and shop. */
function rowIn(id: number, division: number, region: number, shop: number, patch: RawRow = {}): RawRow {
  const utc = Date.UTC(2024, 4, 10, 6) / 1000;
  return shiftRow({
    id,
    division_id: division,
    region_id: region,
    shop_id: shop,
    start_time: formatDateTime(utc, 'T'),
    finish_time: formatDateTime(utc + 28_800, 'T'),
    ...patch,
  });
}

const ids = fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 4 });
const filters = fc.record(
  { divisions: ids, regions: ids, shops: ids },
  { requiredKeys: [] },
) as fc.Arbitrary<RowFilter>;

describe('scope filter', () => {
  it('keeps a row only when its division, region and shop are each in the lists given', () => {
    const filter = new ScopeFilter({ divisions: [7, 8], shops: [700] });
    expect(filter.admits(place(7, 70, 700))).toBe(true);
    expect(filter.admits(place(8, 99, 700))).toBe(true);
    expect(filter.admits(place(9, 70, 700))).toBe(false);
    expect(filter.admits(place(7, 70, 701))).toBe(false);
    expect(filter.outside).toBe(2);
  });

  it('keeps every row when no list is given, and none when a list is empty', () => {
    const all = new ScopeFilter({});
    const none = new ScopeFilter({ regions: [] });
    expect(all.admits(place(1, 2, 3))).toBe(true);
    expect(none.admits(place(1, 2, 3))).toBe(false);
    expect([all.outside, none.outside]).toEqual([0, 1]);
  });

  it('admits exactly the rows every given list holds, and counts the others (property)', () => {
    fc.assert(
      fc.property(
        filters,
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 6 }),
            fc.integer({ min: 1, max: 6 }),
            fc.integer({ min: 1, max: 6 }),
          ),
        ),
        (rowFilter, places) => {
          const filter = new ScopeFilter(rowFilter);
          let kept = 0;
          for (const [d, r, s] of places) {
            const expected =
              (rowFilter.divisions?.includes(d) ?? true) &&
              (rowFilter.regions?.includes(r) ?? true) &&
              (rowFilter.shops?.includes(s) ?? true);
            expect(filter.admits(place(d, r, s))).toBe(expected);
            if (expected) kept++;
          }
          expect(filter.outside).toBe(places.length - kept);
        },
      ),
    );
  });
});

describe('shift pipeline with a filter', () => {
  it('counts rows outside the filter as filtered_out, not rejected, and the counts still add up (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.integer({ min: 1, max: 30 }),
            division: fc.integer({ min: 1, max: 4 }),
            rejected: fc.boolean(),
          }),
          { maxLength: 80 },
        ),
        fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
        (rows, divisions) => {
          const pipeline = new ShiftPipeline({ period: MAY, divisions: new Map(), filter: { divisions } });
          const out = pipeline.processBatch(
            rows.map((r) =>
              rowIn(r.id, r.division, r.division * 10, r.division * 100, r.rejected ? { duration: -1 } : {}),
            ),
          );
          const counts = pipeline.counts;
          expect(counts.fetched).toBe(
            counts.exported +
              counts.rejected +
              counts.duplicates +
              counts.outside_window +
              (counts.filtered_out ?? NaN),
          );
          expect(counts.rejected).toBe(rows.filter((r) => r.rejected).length);
          expect(counts.filtered_out).toBe(
            rows.filter((r) => !r.rejected && !divisions.includes(r.division)).length,
          );
          expect(out.shifts.every((s) => divisions.includes(s.shift.division_id))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('has no filtered_out count without a filter', () => {
    const pipeline = new ShiftPipeline({ period: MAY, divisions: new Map() });
    pipeline.processBatch([rowIn(1, 1, 10, 100)]);
    expect(pipeline.counts).not.toHaveProperty('filtered_out');
  });
});
