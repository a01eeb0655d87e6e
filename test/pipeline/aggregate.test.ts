import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { USER_SUMMARY_COLUMNS } from '../../src/domain/summary-columns.js';
import {
  ALL_DIVISIONS_LABEL,
  type DaySummary,
  type GroupStats,
  type UserSummary,
} from '../../src/domain/summary.js';
import { ShiftAggregator, sortByNameThenId } from '../../src/pipeline/aggregate.js';
import type { DivisionInfo } from '../../src/pipeline/enrich.js';
import { referenceStats } from './support/reference-stats.js';
import { recordOf } from './support/shift-records.js';
import { shiftRow } from './support/shift-rows.js';

function record(patch: Record<string, unknown>): ShiftRecord {
  return recordOf(shiftRow(patch));
}

const ZERO_STATS = referenceStats([]);

const match = fc.constantFrom(true, false, null);
const distance = fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: null });
const name = fc.constantFrom('alpha', 'Alpha', 'beta', 'Émile', 'zeta', 'Ярославль');
/** A start on one of four dates; 22:30 UTC at +03:00 starts the next local (business) day. */
const start = fc.record({ day: fc.integer({ min: 1, max: 4 }), late: fc.boolean() }).map(({ day, late }) => ({
  start_time: `2024-05-0${day}T${late ? '22:30' : '05:00'}:00`,
  finish_time: `2024-05-0${day + 1}T00:00:00`,
}));
const rowPatch = fc.record({
  division_id: fc.integer({ min: 1, max: 4 }),
  division_name: name,
  region_id: fc.integer({ min: 1, max: 6 }),
  region_name: name,
  shop_id: fc.integer({ min: 1, max: 9 }),
  shop_locality: fc.option(name, { nil: null }),
  user_id: fc.integer({ min: 1, max: 12 }),
  user_display_name: name,
  start_location_match: match,
  finish_location_match: match,
  start_location_distance: distance,
  finish_location_distance: distance,
  duration: fc.integer({ min: 0, max: 28_800 }),
  auto_finished: fc.boolean(),
  start,
});

const DIRECTORY = new Map<number, DivisionInfo>([
  [1, { name: 'Metadata one', externalId: 'EXT-1', managers: null, textReplaced: false }],
  [99, { name: 'Quiet division', externalId: 'EXT-99', managers: 'A B <ab>', textReplaced: false }],
]);

function sortedByNameThenId<T>(
  items: readonly T[],
  nameOf: (t: T) => string,
  idOf: (t: T) => number,
): boolean {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const key = (t: T): [string, string, number] => [nameOf(t).toLowerCase(), nameOf(t), idOf(t)];
    const [fa, na, ia] = key(a);
    const [fb, nb, ib] = key(b);
    if (fa > fb || (fa === fb && (na > nb || (na === nb && ia > ib)))) return false;
  }
  return true;
}

/** The days table the plain way: group by business date, then by division, each sorted. */
function referenceDays(records: readonly ShiftRecord[]): DaySummary[] {
  const rows: DaySummary[] = [];
  const days = [...new Set(records.map((r) => r.businessDay))].sort((a, b) => a - b);
  const nameOf = (divisionId: number): string =>
    records.filter((r) => r.shift.division_id === divisionId).at(-1)!.shift.division_name;
  for (const businessDay of days) {
    const ofDay = records.filter((r) => r.businessDay === businessDay).map((r) => r.shift);
    rows.push({
      businessDay,
      divisionId: null,
      divisionName: ALL_DIVISIONS_LABEL,
      stats: referenceStats(ofDay),
    });
    const divisions = [...new Set(ofDay.map((s) => s.division_id))].map((divisionId) => ({
      businessDay,
      divisionId,
      divisionName: nameOf(divisionId),
      stats: referenceStats(ofDay.filter((s) => s.division_id === divisionId)),
    }));
    divisions.sort(
      (a, b) =>
        compare(a.divisionName.toLowerCase(), b.divisionName.toLowerCase()) ||
        compare(a.divisionName, b.divisionName) ||
        a.divisionId - b.divisionId,
    );
    rows.push(...divisions);
  }
  return rows;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

describe('aggregate', () => {
  it('equals a plain reference computation for every grouping (property)', () => {
    fc.assert(
      fc.property(fc.array(rowPatch, { maxLength: 120, size: 'max' }), (patches) => {
        const records = patches.map(({ start, ...patch }, i) => record({ ...patch, ...start, id: i + 1 }));
        const aggregator = new ShiftAggregator(DIRECTORY);
        for (const r of records) aggregator.add(r);
        const summaries = aggregator.finish();
        const shifts = records.map((r) => r.shift);
        const lastOf = (pick: (s: FinishedShift) => number, id: number): FinishedShift =>
          shifts.filter((s) => pick(s) === id).at(-1)!;
        const groupOf = (pick: (s: FinishedShift) => number, id: number): GroupStats =>
          referenceStats(shifts.filter((s) => pick(s) === id));

        expect(summaries.overall).toEqual(referenceStats(shifts));

        const divisionIds = new Set([...shifts.map((s) => s.division_id), ...DIRECTORY.keys()]);
        expect(summaries.divisions.map((d) => d.divisionId).sort()).toEqual([...divisionIds].sort());
        for (const d of summaries.divisions) {
          const last = shifts.filter((s) => s.division_id === d.divisionId).at(-1);
          expect(d.divisionName).toBe(last?.division_name ?? DIRECTORY.get(d.divisionId)?.name);
          expect(d.divisionExternalId).toBe(DIRECTORY.get(d.divisionId)?.externalId ?? null);
          expect(d.stats).toEqual(
            last === undefined ? ZERO_STATS : groupOf((s) => s.division_id, d.divisionId),
          );
        }
        expect(
          sortedByNameThenId(
            summaries.divisions,
            (d) => d.divisionName,
            (d) => d.divisionId,
          ),
        ).toBe(true);

        expect(summaries.days).toEqual(referenceDays(records));

        expect(summaries.regions).toHaveLength(new Set(shifts.map((s) => s.region_id)).size);
        for (const r of summaries.regions) {
          const last = lastOf((s) => s.region_id, r.regionId);
          expect([r.regionName, r.divisionId, r.divisionName]).toEqual([
            last.region_name,
            last.division_id,
            last.division_name,
          ]);
          expect(r.stats).toEqual(groupOf((s) => s.region_id, r.regionId));
        }
        expect(
          sortedByNameThenId(
            summaries.regions,
            (r) => r.regionName,
            (r) => r.regionId,
          ),
        ).toBe(true);

        expect(summaries.shops).toHaveLength(new Set(shifts.map((s) => s.shop_id)).size);
        for (const s of summaries.shops) {
          const last = lastOf((x) => x.shop_id, s.shopId);
          expect([s.shopSap, s.shopLocality, s.regionName, s.divisionName]).toEqual([
            last.shop_sap,
            last.shop_locality,
            last.region_name,
            last.division_name,
          ]);
          expect(s.stats).toEqual(groupOf((x) => x.shop_id, s.shopId));
        }
        expect(
          sortedByNameThenId(
            [...summaries.shops],
            (s) => s.shopLocality ?? '',
            (s) => s.shopId,
          ),
        ).toBe(true);

        expect(summaries.users).toHaveLength(new Set(shifts.map((s) => s.user_id)).size);
        for (const u of summaries.users) {
          const last = lastOf((s) => s.user_id, u.userId);
          expect([u.userLogin, u.userDisplayName]).toEqual([last.user_login, last.user_display_name]);
          expect(u.stats).toEqual(groupOf((s) => s.user_id, u.userId));
        }
        expect(
          sortedByNameThenId(
            [...summaries.users],
            (u) => u.userDisplayName,
            (u) => u.userId,
          ),
        ).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('gives summary rates equal to matched ÷ checked rounded to 4 places (property)', () => {
    const column = (name: string) => USER_SUMMARY_COLUMNS.find((c) => c.name === name)!;
    const rate = (n: number, d: number): number | null =>
      d === 0 ? null : Math.round((n / d) * 10_000) / 10_000;
    fc.assert(
      fc.property(fc.array(rowPatch, { minLength: 1, maxLength: 80 }), (patches) => {
        const aggregator = new ShiftAggregator(new Map());
        const records = patches.map(({ start, ...patch }, i) =>
          record({ ...patch, ...start, user_id: 1, id: i + 1 }),
        );
        for (const r of records) aggregator.add(r);
        const user: UserSummary = [...aggregator.finish().users][0]!;
        const shifts = records.map((r) => r.shift);
        const checked = shifts.filter((s) => s.start_location_match !== null);
        const both = shifts.filter(
          (s) => s.start_location_match !== null && s.finish_location_match !== null,
        );
        expect(column('start_match_rate').value(user)).toBe(
          rate(checked.filter((s) => s.start_location_match).length, checked.length),
        );
        expect(column('both_match_rate').value(user)).toBe(
          rate(both.filter((s) => s.start_location_match && s.finish_location_match).length, both.length),
        );
        expect(column('auto_finished_rate').value(user)).toBe(
          rate(shifts.filter((s) => s.auto_finished).length, shifts.length),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('lists a division of the metadata without shifts with zero shifts and its metadata name', () => {
    const aggregator = new ShiftAggregator(DIRECTORY);
    aggregator.add(record({ division_id: 1, division_name: 'Row name' }));
    const { divisions } = aggregator.finish();
    expect(divisions.map((d) => [d.divisionId, d.divisionName, d.stats.shifts])).toEqual([
      [99, 'Quiet division', 0],
      [1, 'Row name', 1],
    ]);
    expect(divisions[0]!.stats.startDistanceMedian).toBeNull();
  });

  it('labels a group with the names of its latest row', () => {
    const aggregator = new ShiftAggregator(new Map());
    aggregator.add(record({ id: 1, user_display_name: 'Old Name', user_login: 'old' }));
    aggregator.add(record({ id: 2, user_display_name: 'New Name', user_login: 'new' }));
    expect(
      [...aggregator.finish().users].map((u) => [u.userLogin, u.userDisplayName, u.stats.shifts]),
    ).toEqual([['new', 'New Name', 2]]);
  });

  it('counts checked, matched, both and no-location shifts as the summary columns define them', () => {
    const aggregator = new ShiftAggregator(new Map());
    const flags: [boolean | null, boolean | null][] = [
      [true, true],
      [true, false],
      [false, null],
      [null, null],
      [null, true],
    ];
    for (const [start, finish] of flags)
      aggregator.add(record({ start_location_match: start, finish_location_match: finish }));
    const { overall } = aggregator.finish();
    expect(overall).toMatchObject({
      shifts: 5,
      startChecked: 3,
      startMatched: 2,
      finishChecked: 3,
      finishMatched: 2,
      bothChecked: 2,
      bothMatched: 1,
      noLocation: 1,
    });
  });
});

describe('sortByNameThenId', () => {
  it('orders case-insensitively by code units, then by the name as sent, then by id', () => {
    const items = [
      { n: 'b', id: 1 },
      { n: 'B', id: 2 },
      { n: 'a', id: 9 },
      { n: 'A', id: 3 },
      { n: 'Z', id: 4 },
      { n: 'é', id: 5 },
      { n: 'a', id: 1 },
      { n: '', id: 6 },
    ];
    expect(
      sortByNameThenId(
        items,
        (i) => i.n,
        (i) => i.id,
      ).map((i) => `${i.n}${i.id}`),
    ).toEqual(['6', 'A3', 'a1', 'a9', 'B2', 'b1', 'Z4', 'é5']);
  });
});
