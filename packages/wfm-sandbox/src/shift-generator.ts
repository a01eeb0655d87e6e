// The finished-shift report as a pure function of (seed, index): row i can be generated alone, so
// a request streams any slice without holding rows in memory. Rows are generated in start_time
// order and ids grow with it (with gaps), which makes `id` and `start_time` ranges a direct jump to
// an index range: keyset paging over millions of rows costs a binary search per page, not a scan.
// One deviation from a real ORDER BY start_time: rows that start in the same whole second keep id
// order even when their fractions of a second would order them otherwise.

import { SECONDS_PER_DAY } from 'wfm-contract/civil-time';
import type { World, WorldShop } from './generate-world.js';
import { hash3, SeededRandom, unit } from './random.js';
import { SHIFT_COMMENT_FRAGMENTS, SHIFT_COMMENTS } from './shift-comments.js';
import { FRAGMENT_SEPARATORS, type ShiftFragments } from './shift-json-encoder.js';
import type { ShiftRow } from './shift-row.js';
import { PLACE_TABLE } from './world-tables.js';

export interface ShiftGeneratorOptions {
  readonly seed: number;
  readonly rows: number;
  /** First and last business dates (day numbers since 1970-01-01) that have shifts. */
  readonly firstDay: number;
  readonly lastDay: number;
  /** Every `every`-th row (indexes every-1, 2·every-1, …) carries one comment of about `bytes` bytes. */
  readonly longComment?: { readonly every: number; readonly bytes: number } | undefined;
  /**
   * Every row its own user: user_id is USER_PER_ROW_FIRST_ID + the row's index (names, shop and
   * offset still those of a world user), the report with the most groups an export can meet.
   */
  readonly userPerRow?: boolean | undefined;
}

/** The user_id of row 0 when every row is its own user: above every world user's id. */
export const USER_PER_ROW_FIRST_ID = 100_000_000;

export const FIRST_SHIFT_ID = 1_000_001;
/** Ids advance by 1..5 per row: increasing with start_time, never contiguous for long. */
const ID_STRIDE = 3;

const SALT_TIME = 1;
const SALT_ID = 2;
const SALT_ROW = 3;

const MIN_OFFSET = -720;
const OFFSET_SLOTS = (840 - MIN_OFFSET) / 15 + 1;
const QUARTERS_PER_DAY = 96;
// Local start hours of shifts: mostly mornings, some evenings (which cross midnight), none at night.
const START_HOUR_WEIGHT = [0, 0, 0, 0, 0, 1, 4, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 0];
// UTC starts run from 8 h before the first business date to 10 h after the last one: the earliest
// local mornings at +14:00 and the latest evenings at -12:00 still fall inside the dates.
const SPAN_BEFORE = 8 * 3600;
const SPAN_AFTER = 10 * 3600;
const METRES_PER_DEGREE = 111_320;
// Directions of a user from the shop: a table of unit vectors instead of cos/sin per row.
const DIRECTIONS = 256;
const UNIT_VECTORS = Float64Array.from({ length: DIRECTIONS * 2 }, (_, k) =>
  k % 2 === 0
    ? Math.cos((Math.floor(k / 2) * 2 * Math.PI) / DIRECTIONS)
    : Math.sin((Math.floor(k / 2) * 2 * Math.PI) / DIRECTIONS),
);
const POWERS_OF_TEN = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];
const PERMITTED_DISTANCE = 200;

export class ShiftGenerator {
  readonly rows: number;
  private readonly seed: number;
  private readonly firstDay: number;
  private readonly lastDay: number;
  private readonly spanStart: number;
  private readonly spanSeconds: number;
  private readonly world: World;
  private readonly divisionNames: string[];
  /** UTF-8 JSON fragments of users, shops and comments, for the encoder. */
  readonly fragments: ShiftFragments;
  private readonly shopFragments: Uint8Array[];
  private readonly usersByOffset: (Int32Array | undefined)[];
  private readonly offsetsWithUsers: number[];
  private readonly slotOffsets: Int16Array[];
  /** Per shop: lat and lon in millionths of a degree, millionths of lon per metre, 1 when located. */
  private readonly shopGeo: Float64Array;
  private readonly longCommentEvery: number;
  private readonly longComment: string;
  private readonly userPerRow: boolean;
  private readonly random = new SeededRandom(0);
  // Scratch of the last location drawn (avoids an allocation per row); NaN latE6 means none.
  private latE6 = NaN;
  private lonE6 = NaN;
  private distance: number | null = null;

  constructor(world: World, options: ShiftGeneratorOptions) {
    this.world = world;
    this.seed = options.seed >>> 0;
    this.rows = options.rows;
    this.firstDay = options.firstDay;
    this.lastDay = options.lastDay;
    this.spanStart = options.firstDay * SECONDS_PER_DAY - SPAN_BEFORE;
    this.spanSeconds = (options.lastDay + 1) * SECONDS_PER_DAY + SPAN_AFTER - this.spanStart;
    this.divisionNames = world.divisions.map((d) => d.name);
    this.longCommentEvery = options.longComment?.every ?? 0;
    this.userPerRow = options.userPerRow === true;
    this.longComment = this.longCommentEvery > 0 ? longCommentText(options.longComment?.bytes ?? 0) : '';
    this.shopFragments = world.shops.map((s) => this.shopFragment(s));
    this.shopGeo = new Float64Array(world.shops.length * 4);
    world.shops.forEach((shop, i) => {
      // A shop without coordinates: users are placed around its city, with no distance.
      const place = PLACE_TABLE[world.regions[shop.region]?.place ?? 0];
      const lat = shop.lat ?? place?.lat ?? 0;
      this.shopGeo.set(
        [
          lat * 1e6,
          (shop.lon ?? place?.lon ?? 0) * 1e6,
          1e6 / (METRES_PER_DEGREE * Math.cos((lat * Math.PI) / 180)),
          shop.lat === null ? 0 : 1,
        ],
        i * 4,
      );
    });
    this.fragments = {
      users: world.users.map((u) =>
        fragment(
          'user',
          `"user_login":${JSON.stringify(u.login)},"user_org_level":"${u.orgLevel}",` +
            `"user_position":${JSON.stringify(u.position)},"user_display_name":${JSON.stringify(u.displayName)}`,
        ),
      ),
      shops: this.shopFragments,
      // The long comment, when asked for, is the last of the pool.
      comments: [
        ...SHIFT_COMMENT_FRAGMENTS,
        ...(this.longCommentEvery > 0 ? [`"comment":${JSON.stringify(this.longComment)}`] : []),
      ].map((c) => fragment('comment', c)),
    };

    const buckets: number[][] = Array.from({ length: OFFSET_SLOTS }, () => []);
    world.users.forEach((u, i) => buckets[(u.offset - MIN_OFFSET) / 15]?.push(i));
    this.usersByOffset = buckets.map((b) => (b.length === 0 ? undefined : Int32Array.from(b)));
    this.offsetsWithUsers = buckets.flatMap((b, slot) => (b.length === 0 ? [] : [MIN_OFFSET + slot * 15]));
    this.slotOffsets = [];
    for (let q = 0; q < QUARTERS_PER_DAY; q++) {
      const weighted: number[] = [];
      for (const offset of this.offsetsWithUsers) {
        const localMinutes = (((q * 15 + offset) % 1440) + 1440) % 1440;
        for (let w = START_HOUR_WEIGHT[Math.floor(localMinutes / 60)] ?? 0; w > 0; w--) weighted.push(offset);
      }
      this.slotOffsets.push(Int16Array.from(weighted.length > 0 ? weighted : [0]));
    }
  }

  /** Id of row i: strictly increasing in i, with gaps. */
  idAt(i: number): number {
    return FIRST_SHIFT_ID + ID_STRIDE * i + (hash3(this.seed, SALT_ID, i) % ID_STRIDE);
  }

  /** Whole UTC epoch second of the start of row i: non-decreasing in i. */
  startSecondAt(i: number): number {
    return (
      this.spanStart + Math.floor(((i + unit(hash3(this.seed, SALT_TIME, i))) * this.spanSeconds) / this.rows)
    );
  }

  /** The first index whose id is >= id (rows when none). */
  firstIndexWithIdAtLeast(id: number): number {
    const k = Math.floor((id - FIRST_SHIFT_ID) / ID_STRIDE);
    if (k < 0) return 0;
    if (k >= this.rows) return this.rows;
    return this.idAt(k) >= id ? k : k + 1;
  }

  /** The first index whose whole start second is >= seconds (rows when none): a binary search. */
  firstIndexWithStartAtLeast(seconds: number): number {
    let lo = 0;
    let hi = this.rows;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.startSecondAt(mid) < seconds) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Keeps the report's division_name in step with a division renamed through the API. */
  renameDivision(divisionIndex: number, name: string): void {
    this.divisionNames[divisionIndex] = name;
    this.world.shops.forEach((shop, i) => {
      if (shop.division === divisionIndex) this.shopFragments[i] = this.shopFragment(shop);
    });
  }

  /** Fills `row` with row i. */
  fill(i: number, row: ShiftRow): void {
    const r = this.random;
    const world = this.world;
    const start = this.startSecondAt(i);
    row.id = this.idAt(i);
    r.reseed(hash3(this.seed, SALT_ROW, i));

    const quarter = Math.floor((start - Math.floor(start / SECONDS_PER_DAY) * SECONDS_PER_DAY) / 900);
    const candidates = this.slotOffsets[quarter];
    let offset = candidates === undefined ? 0 : (candidates[r.int(candidates.length)] ?? 0);
    if (!this.inPeriod(start, offset)) offset = this.offsetInPeriod(start, candidates);
    const users = this.usersByOffset[(offset - MIN_OFFSET) / 15];
    const userIndex = users === undefined ? 0 : (users[r.int(users.length)] ?? 0);
    const user = world.users[userIndex];
    if (user === undefined) throw new Error('shift generator: no users');
    let shopIndex = user.homeShop;
    if (r.next() < 0.1) {
      // Sometimes a user helps out in another shop of the same region (same offset).
      const neighbours = world.regions[world.shops[shopIndex]?.region ?? 0]?.shops ?? [];
      shopIndex = neighbours[r.int(neighbours.length)] ?? shopIndex;
    }
    const shop = world.shops[shopIndex];
    const region = shop === undefined ? undefined : world.regions[shop.region];
    if (shop === undefined || region === undefined) throw new Error('shift generator: no shops');

    row.userIndex = userIndex;
    row.user_id = this.userPerRow ? USER_PER_ROW_FIRST_ID + i : user.id;
    row.user_login = user.login;
    row.user_org_level = user.orgLevel;
    row.user_position = user.position;
    row.user_display_name = user.displayName;
    row.shopIndex = shopIndex;
    row.division_id = world.divisions[shop.division]?.id ?? 0;
    row.division_name = this.divisionNames[shop.division] ?? '';
    row.region_id = region.id;
    row.region_name = region.name;
    row.shop_id = shop.id;
    row.shop_sap = shop.sap;
    row.shop_locality = shop.locality;
    row.shop_address = shop.address;

    const auto = r.next() < 0.04;
    const kind = r.next();
    let duration: number;
    if (auto) duration = 12 * 3600;
    else if (kind < 0.02) duration = 300 + r.int(3300);
    else if (kind < 0.27) duration = 3 * 3600 + r.int(5 * 3600);
    else duration = 8 * 3600 + r.int(4 * 3600);
    row.auto_finished = auto;
    row.start_time_offset = offset;
    // A shift across a daylight-saving change starts and ends at different offsets.
    row.finish_time_offset = r.next() < 0.005 ? (offset >= 780 ? offset - 60 : offset + 60) : offset;
    row.startSecond = start;
    row.finishSecond = start + duration;
    // Some times carry a fraction of a second, 1 to 9 digits.
    row.startFractionDigits = r.next() < 0.15 ? 1 + r.int(9) : 0;
    row.startFraction =
      row.startFractionDigits === 0 ? 0 : r.int(POWERS_OF_TEN[row.startFractionDigits] ?? 1);
    row.finishFractionDigits = r.next() < 0.15 ? 1 + r.int(9) : 0;
    row.finishFraction =
      row.finishFractionDigits === 0 ? 0 : r.int(POWERS_OF_TEN[row.finishFractionDigits] ?? 1);
    // A few rows disagree with themselves by more than a minute (a quality flag to raise).
    if (r.next() < 0.003)
      duration += duration > 7200 && r.next() < 0.5 ? -(61 + r.int(3600)) : 61 + r.int(3600);
    row.duration = duration;

    if (this.longCommentEvery > 0 && i % this.longCommentEvery === this.longCommentEvery - 1) {
      row.commentIndex = SHIFT_COMMENTS.length;
      row.comment = this.longComment;
    } else if (r.next() < 0.3) {
      row.commentIndex = r.int(SHIFT_COMMENTS.length);
      row.comment = SHIFT_COMMENTS[row.commentIndex] ?? null;
    } else {
      row.commentIndex = -1;
      row.comment = null;
    }

    // ~10% of shifts lack a location: mostly both ends, sometimes only the start or the finish.
    const missing = r.next();
    this.location(r, shopIndex, missing < 0.08);
    row.startLatE6 = this.latE6;
    row.startLonE6 = this.lonE6;
    row.start_location_lat = Number.isNaN(this.latE6) ? null : this.latE6 / 1e6;
    row.start_location_lon = Number.isNaN(this.lonE6) ? null : this.lonE6 / 1e6;
    row.start_location_distance = this.distance;
    row.start_location_match = this.distance === null ? null : this.distance <= PERMITTED_DISTANCE;
    this.location(r, shopIndex, missing < 0.06 || (missing >= 0.08 && missing < 0.1));
    row.finishLatE6 = this.latE6;
    row.finishLonE6 = this.lonE6;
    row.finish_location_lat = Number.isNaN(this.latE6) ? null : this.latE6 / 1e6;
    row.finish_location_lon = Number.isNaN(this.lonE6) ? null : this.lonE6 / 1e6;
    row.finish_location_distance = this.distance;
    row.finish_location_match = this.distance === null ? null : this.distance <= PERMITTED_DISTANCE;
    // A broken GPS fix now and then: coordinates out of range.
    if (r.next() < 0.0005 && row.start_location_lat !== null) {
      if (r.next() < 0.5) row.startLatE6 = r.next() < 0.5 ? 91_000_000 : -90_500_000;
      else row.startLonE6 = 181_000_000;
      row.start_location_lat = row.startLatE6 / 1e6;
      row.start_location_lon = row.startLonE6 / 1e6;
    }
  }

  private inPeriod(start: number, offset: number): boolean {
    const day = Math.floor((start + offset * 60) / SECONDS_PER_DAY);
    return day >= this.firstDay && day <= this.lastDay;
  }

  private offsetInPeriod(start: number, candidates: Int16Array | undefined): number {
    const tries = candidates ?? new Int16Array(0);
    const from = this.random.int(Math.max(1, tries.length));
    for (let k = 0; k < tries.length; k++) {
      const offset = tries[(from + k) % tries.length] ?? 0;
      if (this.inPeriod(start, offset)) return offset;
    }
    return this.offsetsWithUsers.find((offset) => this.inPeriod(start, offset)) ?? 0;
  }

  private location(r: SeededRandom, shopIndex: number, missing: boolean): void {
    if (missing) {
      this.latE6 = NaN;
      this.lonE6 = NaN;
      this.distance = null;
      return;
    }
    const u = r.next();
    const distance = u < 0.7 ? r.int(150) : u < 0.9 ? 150 + r.int(850) : 1000 + r.int(49_000);
    const direction = r.int(DIRECTIONS) * 2;
    const geo = this.shopGeo;
    const at = shopIndex * 4;
    this.latE6 = Math.round(
      (geo[at] ?? 0) + distance * (UNIT_VECTORS[direction] ?? 0) * (1e6 / METRES_PER_DEGREE),
    );
    this.lonE6 = Math.round(
      (geo[at + 1] ?? 0) + distance * (UNIT_VECTORS[direction + 1] ?? 0) * (geo[at + 2] ?? 0),
    );
    // Without the shop's coordinates the upstream cannot tell a distance.
    this.distance = geo[at + 3] === 1 ? distance : null;
  }

  private shopFragment(shop: WorldShop): Uint8Array {
    const division = this.world.divisions[shop.division];
    const region = this.world.regions[shop.region];
    return fragment(
      'shop',
      `"division_id":${division?.id ?? 0},"division_name":${JSON.stringify(this.divisionNames[shop.division] ?? '')},` +
        `"region_id":${region?.id ?? 0},"region_name":${JSON.stringify(region?.name ?? '')},"shop_id":${shop.id},` +
        `"shop_sap":${JSON.stringify(shop.sap)},"shop_locality":${JSON.stringify(shop.locality)},` +
        `"shop_address":${JSON.stringify(shop.address)}`,
    );
  }
}

function fragment(kind: keyof typeof FRAGMENT_SEPARATORS, json: string): Uint8Array {
  const { before, after } = FRAGMENT_SEPARATORS[kind];
  return Buffer.from(before + json + after, 'utf8');
}

/** A comment of at least `bytes` bytes of UTF-8, with characters that need escaping or several bytes. */
export function longCommentText(bytes: number): string {
  const line = 'Очень длинный комментарий, "quoted",\ttab, emoji 🙂, formula =1+1;\n';
  return `=${line.repeat(Math.max(1, Math.ceil(bytes / Buffer.byteLength(line))))}end`;
}
