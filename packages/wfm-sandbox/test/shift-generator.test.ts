import { beforeAll, describe, expect, it } from 'vitest';
import { parseDay, SECONDS_PER_DAY } from 'wfm-contract/civil-time';
import { finishedShiftSchema, ORG_LEVELS, type FinishedShift } from 'wfm-contract/finished-shift';
import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { generateWorld, type World } from '../src/generate-world.js';
import { ShiftGenerator } from '../src/shift-generator.js';
import { ShiftJsonEncoder } from '../src/shift-json-encoder.js';
import { ShiftRow, toFinishedShift } from '../src/shift-row.js';

const ROWS = 20_000;
const LAST_DAY = parseDay('2024-03-31') ?? 0;
const FIRST_DAY = LAST_DAY - 27;

let world: World;
let generator: ShiftGenerator;
let rows: FinishedShift[];

function generate(
  seed: number,
  count: number,
  take = count,
): { generator: ShiftGenerator; rows: FinishedShift[] } {
  const g = new ShiftGenerator(generateWorld(seed, count), {
    seed,
    rows: count,
    firstDay: FIRST_DAY,
    lastDay: LAST_DAY,
  });
  const scratch = new ShiftRow();
  return {
    generator: g,
    rows: Array.from({ length: take }, (_, i) => {
      g.fill(i, scratch);
      return toFinishedShift(scratch);
    }),
  };
}

const seconds = (text: string): number => parseLocalDateTimeSeconds(text) ?? Number.NaN;
const share = (predicate: (r: FinishedShift) => boolean): number =>
  rows.filter(predicate).length / rows.length;

beforeAll(() => {
  world = generateWorld(3, ROWS);
  ({ generator, rows } = generate(3, ROWS));
});

describe('ShiftGenerator', () => {
  it('makes every row satisfy the contract of spec 2.5', () => {
    expect(rows.filter((r) => !finishedShiftSchema.safeParse(r).success)).toEqual([]);
  });

  it('is a pure function of seed and index: same seed, same rows; another seed, other rows', () => {
    const again = generate(3, ROWS, 2000).rows;
    expect(again).toEqual(rows.slice(0, 2000));
    const scratch = new ShiftRow();
    generator.fill(12_345, scratch);
    expect(toFinishedShift(scratch)).toEqual(rows[12_345]);
    expect(generate(4, ROWS, 50).rows).not.toEqual(rows.slice(0, 50));
  });

  it('gives increasing ids with gaps and non-decreasing start times', () => {
    let gaps = 0;
    const disorder: number[] = [];
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1];
      const b = rows[i];
      if (a === undefined || b === undefined) throw new Error('missing row');
      if (b.id <= a.id || seconds(b.start_time) < seconds(a.start_time)) disorder.push(i);
      if (b.id - a.id > 1) gaps++;
    }
    expect(disorder).toEqual([]);
    expect(gaps).toBeGreaterThan(rows.length / 2);
  });

  it('finds the first index of an id or a start second like a scan would', () => {
    for (const i of [0, 1, 777, 19_999]) {
      const r = rows[i];
      if (r === undefined) throw new Error('missing row');
      expect(generator.firstIndexWithIdAtLeast(r.id)).toBe(i);
      expect(generator.firstIndexWithIdAtLeast(r.id + 1)).toBe(i + 1);
      const second = seconds(r.start_time);
      const first = rows.findIndex((x) => seconds(x.start_time) >= second);
      expect(generator.firstIndexWithStartAtLeast(second)).toBe(first);
    }
    expect(generator.firstIndexWithIdAtLeast(0)).toBe(0);
    expect(generator.firstIndexWithIdAtLeast(Number.MAX_SAFE_INTEGER)).toBe(ROWS);
  });

  it('puts every local start on a business date of the period, the last date included', () => {
    const days = rows.map((r) =>
      Math.floor((seconds(r.start_time) + r.start_time_offset * 60) / SECONDS_PER_DAY),
    );
    expect(Math.min(...days)).toBe(FIRST_DAY);
    expect(Math.max(...days)).toBe(LAST_DAY);
  });

  it('covers every UTC offset from -12:00 to +14:00, +05:30 and +05:45 included', () => {
    const offsets = new Set(rows.map((r) => r.start_time_offset));
    for (const offset of [-720, -570, -210, 0, 330, 345, 525, 765, 840])
      expect(offsets.has(offset)).toBe(true);
    expect(Math.min(...offsets)).toBe(-720);
    expect(Math.max(...offsets)).toBe(840);
    expect(offsets.size).toBeGreaterThanOrEqual(38);
    expect(rows.every((r) => r.start_time_offset % 15 === 0)).toBe(true);
  });

  it('has some shifts whose start and finish offsets differ, and many across local midnight', () => {
    expect(share((r) => r.start_time_offset !== r.finish_time_offset)).toBeGreaterThan(0.002);
    const crossesMidnight = (r: FinishedShift): boolean =>
      Math.floor((seconds(r.start_time) + r.start_time_offset * 60) / SECONDS_PER_DAY) !==
      Math.floor((seconds(r.finish_time) + r.finish_time_offset * 60) / SECONDS_PER_DAY);
    expect(share(crossesMidnight)).toBeGreaterThan(0.1);
  });

  it('keeps duration = finish - start except for a small share more than 60 s off', () => {
    const off = share((r) => Math.abs(seconds(r.finish_time) - seconds(r.start_time) - r.duration) > 60);
    const slightlyOff = share((r) => {
      const d = Math.abs(seconds(r.finish_time) - seconds(r.start_time) - r.duration);
      return d > 0 && d <= 60;
    });
    expect(off).toBeGreaterThan(0.001);
    expect(off).toBeLessThan(0.01);
    expect(slightlyOff).toBe(0);
  });

  it('leaves about one shift in ten without a location, sometimes at one end only', () => {
    const noStart = (r: FinishedShift): boolean => r.start_location_lat === null;
    const noFinish = (r: FinishedShift): boolean => r.finish_location_lat === null;
    expect(share((r) => noStart(r) || noFinish(r))).toBeGreaterThan(0.07);
    expect(share((r) => noStart(r) || noFinish(r))).toBeLessThan(0.13);
    expect(share((r) => noStart(r) && !noFinish(r))).toBeGreaterThan(0.005);
    expect(share((r) => !noStart(r) && noFinish(r))).toBeGreaterThan(0.005);
    const partial = rows
      .filter(noStart)
      .filter(
        (r) =>
          r.start_location_lon !== null ||
          r.start_location_distance !== null ||
          r.start_location_match !== null,
      );
    expect(partial).toEqual([]);
  });

  it('agrees with itself: match is distance <= 200, distance is null only with an unknown position or shop', () => {
    const inconsistent = rows.filter((r) =>
      r.start_location_distance === null
        ? r.start_location_match !== null
        : r.start_location_match !== r.start_location_distance <= 200,
    );
    expect(inconsistent).toEqual([]);
    expect(share((r) => r.start_location_lat !== null && r.start_location_distance === null)).toBeGreaterThan(
      0,
    );
  });

  it('has auto-finished shifts, all four org levels and a few out-of-range coordinates', () => {
    expect(share((r) => r.auto_finished)).toBeGreaterThan(0.02);
    expect(new Set(rows.map((r) => r.user_org_level))).toEqual(new Set(ORG_LEVELS));
    const outOfRange = rows.filter(
      (r) =>
        r.start_location_lat !== null &&
        (Math.abs(r.start_location_lat) > 90 || Math.abs(r.start_location_lon ?? 0) > 180),
    );
    expect(outOfRange.length).toBeGreaterThan(0);
    expect(outOfRange.length).toBeLessThan(ROWS / 500);
  });

  it('writes fractions of a second of 1 to 9 digits on some times', () => {
    const digits = new Set(rows.map((r) => /\.(\d+)$/.exec(r.start_time)?.[1]?.length ?? 0));
    expect(digits).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    expect(share((r) => r.finish_time.includes('.'))).toBeGreaterThan(0.1);
  });

  it('carries the dangerous comments: commas, quotes, newlines, emoji and leading = + - @', () => {
    const comments = rows.flatMap((r) => (r.comment === null ? [] : [r.comment]));
    expect(comments.length / ROWS).toBeGreaterThan(0.2);
    for (const lead of ['=', '+', '-', '@']) expect(comments.some((c) => c.startsWith(lead))).toBe(true);
    expect(comments.some((c) => c.includes(','))).toBe(true);
    expect(comments.some((c) => c.includes('"'))).toBe(true);
    expect(comments.some((c) => c.includes('\n'))).toBe(true);
    expect(comments.some((c) => /\p{Extended_Pictographic}/u.test(c))).toBe(true);
  });

  it('names users by "First Last" or by their login', () => {
    expect(share((r) => r.user_display_name === r.user_login)).toBeGreaterThan(0.01);
    expect(share((r) => /^\S+ \S+/.test(r.user_display_name))).toBeGreaterThan(0.8);
  });

  it('places each shift in a shop whose division and region are the organisation’s', () => {
    const shops = new Map(world.shops.map((s) => [s.id, s]));
    for (const r of rows.slice(0, 2000)) {
      const shop = shops.get(r.shop_id);
      expect(shop).toBeDefined();
      if (shop === undefined) continue;
      const region = world.regions[shop.region];
      expect(r.region_id).toBe(region?.id);
      expect(r.region_name).toBe(region?.name);
      expect(r.division_id).toBe(world.divisions[shop.division]?.id);
      expect(r.shop_sap).toBe(shop.sap);
      expect(r.start_time_offset === shop.offset || r.finish_time_offset === shop.offset).toBe(true);
    }
  });

  it('writes each row as exactly the JSON of its members in the spec’s order, ~900 bytes on average', () => {
    const encoder = new ShiftJsonEncoder(generator.fragments);
    const out = Buffer.alloc(64 * 1024);
    const scratch = new ShiftRow();
    let bytes = 0;
    const different: number[] = [];
    for (let i = 0; i < ROWS; i += 7) {
      generator.fill(i, scratch);
      const end = encoder.write(scratch, out, 0);
      if (end > encoder.rowBytesBound(scratch)) different.push(-i);
      if (out.toString('utf8', 0, end) !== JSON.stringify(rows[i])) different.push(i);
      bytes += end;
    }
    expect(different).toEqual([]);
    const average = bytes / Math.ceil(ROWS / 7);
    expect(average).toBeGreaterThan(800);
    expect(average).toBeLessThan(1100);
  });

  it('gives every n-th row one long comment when asked, and none otherwise', () => {
    const g = new ShiftGenerator(generateWorld(3, 100), {
      seed: 3,
      rows: 100,
      firstDay: FIRST_DAY,
      lastDay: LAST_DAY,
      longComment: { every: 40, bytes: 100_000 },
    });
    const scratch = new ShiftRow();
    const long = [0, 39, 40, 79, 99].map((i) => {
      g.fill(i, scratch);
      return Buffer.byteLength(scratch.comment ?? '');
    });
    expect(long.map((b) => b >= 100_000)).toEqual([false, true, false, true, false]);
    g.fill(39, scratch);
    const encoder = new ShiftJsonEncoder(g.fragments);
    const out = Buffer.alloc(encoder.rowBytesBound(scratch));
    const json = out.toString('utf8', 0, encoder.write(scratch, out, 0));
    expect(JSON.parse(json)).toEqual(toFinishedShift(scratch));
    expect(scratch.comment?.startsWith('=')).toBe(true);
    expect(scratch.comment).toContain('\n');
  });

  it('gives every row its own user_id when asked, written into the JSON as the row says', () => {
    const g = new ShiftGenerator(generateWorld(3, 500), {
      seed: 3,
      rows: 500,
      firstDay: FIRST_DAY,
      lastDay: LAST_DAY,
      userPerRow: true,
    });
    const encoder = new ShiftJsonEncoder(g.fragments);
    const out = Buffer.alloc(64 * 1024);
    const scratch = new ShiftRow();
    const ids = new Set<number>();
    const different: number[] = [];
    for (let i = 0; i < 500; i++) {
      g.fill(i, scratch);
      ids.add(scratch.user_id);
      const json = out.toString('utf8', 0, encoder.write(scratch, out, 0));
      if (json !== JSON.stringify(toFinishedShift(scratch))) different.push(i);
    }
    expect(ids.size).toBe(500);
    expect(different).toEqual([]);
    expect(world.users.some((u) => ids.has(u.id))).toBe(false);
  });

  it('renames a division in the rows it generates afterwards', () => {
    const { generator: g } = generate(3, 100);
    const scratch = new ShiftRow();
    g.fill(0, scratch);
    const divisionIndex = world.divisions.findIndex((d) => d.id === scratch.division_id);
    g.renameDivision(divisionIndex, 'Renamed, "quoted"');
    g.fill(0, scratch);
    const encoder = new ShiftJsonEncoder(g.fragments);
    const out = Buffer.alloc(64 * 1024);
    const json = JSON.parse(out.toString('utf8', 0, encoder.write(scratch, out, 0))) as FinishedShift;
    expect(scratch.division_name).toBe('Renamed, "quoted"');
    expect(json.division_name).toBe('Renamed, "quoted"');
  });
});
