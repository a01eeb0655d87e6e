// Rows as the upstream sends them (spec 2.5), for the pipeline tests and the throughput check:
// one clean base row to patch, and a deterministic generator of realistic rows.

import { formatLocalDateTime } from 'wfm-contract/local-date-time';

export type RawRow = Record<string, unknown>;

/** A clean, placeable row; `patch` replaces members (a member set to undefined is removed). */
export function shiftRow(patch: RawRow = {}): RawRow {
  const row: RawRow = {
    id: 1001,
    user_id: 501,
    user_login: 'a.ivanova',
    user_org_level: 'SHOP',
    user_position: 'Cashier',
    user_display_name: 'Anna Ivanova',
    division_id: 7,
    division_name: 'North',
    region_id: 70,
    region_name: 'North-West',
    shop_id: 700,
    shop_sap: '0700',
    shop_locality: 'Pskov',
    shop_address: 'Lenina 1',
    start_time: '2024-05-01T05:00:00',
    start_time_offset: 180,
    finish_time: '2024-05-01T13:00:00',
    finish_time_offset: 180,
    duration: 28_800,
    comment: null,
    start_location_lat: 57.81,
    start_location_lon: 28.33,
    start_location_distance: 35,
    start_location_match: true,
    finish_location_lat: 57.81,
    finish_location_lon: 28.33,
    finish_location_distance: 240,
    finish_location_match: false,
    auto_finished: false,
  };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete row[key];
    else row[key] = value;
  }
  return row;
}

/** mulberry32: a small deterministic PRNG, so generated data is the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const OFFSETS = [120, 180, 180, 180, 240, 300, 360, 420, 480, 540, 600, 660, 720];
const POSITIONS = ['Cashier', 'Shop manager', 'Merchandiser', null];

export interface RealisticRowsOptions {
  readonly seed?: number;
  /** Day number of the first business date (default 2024-05-01). */
  readonly firstDay?: number;
  readonly days?: number;
  readonly users?: number;
  readonly shops?: number;
  readonly firstId?: number;
}

/** `count` realistic rows (ids ascending, ~10% without location, now and then a long comment). */
export function realisticRows(count: number, options: RealisticRowsOptions = {}): RawRow[] {
  const random = seededRandom(options.seed ?? 1);
  const firstDay = options.firstDay ?? 19_844; // 2024-05-01
  const days = options.days ?? 31;
  const users = options.users ?? 20_000;
  const shops = options.shops ?? 2_000;
  const firstId = options.firstId ?? 1_000_000;
  const rows: RawRow[] = [];
  for (let i = 0; i < count; i++) {
    const shop = Math.floor(random() * shops);
    const region = Math.floor(shop / 40);
    const division = Math.floor(region / 5);
    const user = Math.floor(random() * users);
    const offset = OFFSETS[shop % OFFSETS.length]!;
    const localStart =
      (firstDay + Math.floor(random() * days)) * 86_400 + 6 * 3600 + Math.floor(random() * 8 * 3600);
    const start = localStart - offset * 60;
    const duration = 4 * 3600 + Math.floor(random() * 8 * 3600);
    const located = random() > 0.1;
    const startDistance = located ? Math.floor(random() * random() * 2_000) : null;
    const finishDistance = located ? Math.floor(random() * random() * 2_000) : null;
    rows.push({
      id: firstId + i,
      user_id: 100_000 + user,
      user_login: `user.${user}`,
      user_org_level: 'SHOP',
      user_position: POSITIONS[user % POSITIONS.length] ?? null,
      user_display_name: `Name${user} Surname${user % 977}`,
      division_id: division,
      division_name: `Division ${division}`,
      region_id: 1_000 + region,
      region_name: `Region ${region}`,
      shop_id: 10_000 + shop,
      shop_sap: String(shop).padStart(5, '0'),
      shop_locality: `Town ${shop % 300}`,
      shop_address: `Main street ${shop}, building ${shop % 17}`,
      start_time: `${formatLocalDateTime(start)}.${String(Math.floor(random() * 1000)).padStart(3, '0')}`,
      start_time_offset: offset,
      finish_time: formatLocalDateTime(start + duration),
      finish_time_offset: offset,
      duration,
      comment: random() < 0.05 ? 'Left early: the delivery came late and the manager agreed.' : null,
      start_location_lat: located ? 40 + random() * 20 : null,
      start_location_lon: located ? 20 + random() * 100 : null,
      start_location_distance: startDistance,
      start_location_match: startDistance === null ? null : startDistance <= 150,
      finish_location_lat: located ? 40 + random() * 20 : null,
      finish_location_lon: located ? 20 + random() * 100 : null,
      finish_location_distance: finishDistance,
      finish_location_match: finishDistance === null ? null : finishDistance <= 150,
      auto_finished: random() < 0.08,
    });
  }
  return rows;
}
