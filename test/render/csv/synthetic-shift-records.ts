// Realistic ShiftRecords without the pipeline, for renderer tests and throughput measurements:
// a deterministic generator (same seed, same rows) with the mix a real report has — Cyrillic and
// Latin names, addresses with commas, a few comments with quotes, line breaks or a leading `=`,
// missing locations, offsets from -05:00 to +10:00.

import { formatDateTime } from 'wfm-contract/civil-time';
import type { FinishedShift, OrgLevel } from 'wfm-contract/finished-shift';
import { locationStatusOf, type ShiftRecord } from '../../../src/domain/shift-record.js';

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = ['Ivan', 'Olga', 'Анна', 'Дмитрий', 'María', 'Jürgen', 'Chen', 'Fatima', 'Sergey', 'Екатерина'];
const LAST = [
  'Petrov',
  'Smirnova',
  'Иванова',
  'Кузнецов',
  "O'Brien",
  'Müller',
  'Wang',
  'Haddad',
  'Ng',
  'Соколова',
];
const POSITIONS = ['Cashier', 'Sales assistant', 'Shop manager', 'Кладовщик', null];
const LEVELS: readonly OrgLevel[] = ['SHOP', 'SHOP', 'SHOP', 'REGION', 'DIVISION', 'COMPANY'];
const OFFSETS = [180, 180, 180, 240, 300, 420, 600, 60, 0, -300, 330, 345];
const COMMENTS = [
  null,
  null,
  null,
  null,
  null,
  null,
  'Left early, manager informed',
  'Covered for "Anna", she was ill',
  'Line one\nline two',
  '=HYPERLINK("http://example.invalid","click")',
  '-5 minutes late',
  'Касса №3, смена; без перерыва',
  '',
];

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)] as T;
}

function coordinate(rnd: () => number, centre: number, spread: number): number {
  return Math.round((centre + (rnd() - 0.5) * spread) * 1e6) / 1e6;
}

/** `count` records starting at 2026-11-01 local time, `seed` choosing the values. */
export function syntheticShiftRecords(count: number, seed = 1): ShiftRecord[] {
  const rnd = random(seed);
  const base = Date.UTC(2026, 10, 1) / 1000;
  const out: ShiftRecord[] = [];
  for (let i = 0; i < count; i++) {
    const offset = pick(rnd, OFFSETS);
    const startLocal = base + Math.floor(rnd() * 14 * 86_400);
    const duration = 4 * 3600 + Math.floor(rnd() * 8 * 3600);
    const startUtc = startLocal - offset * 60;
    const finishUtc = startUtc + duration + (rnd() < 0.01 ? 3600 : 0);
    const hasStart = rnd() < 0.9;
    const hasFinish = rnd() < 0.85;
    const startDistance = hasStart ? Math.floor(rnd() * 900) : null;
    const finishDistance = hasFinish ? Math.floor(rnd() * 900) : null;
    const startMatch = startDistance === null ? null : startDistance <= 300;
    const finishMatch = finishDistance === null ? null : finishDistance <= 300;
    const divisionId = 1 + Math.floor(rnd() * 8);
    const regionId = divisionId * 10 + Math.floor(rnd() * 5);
    const shopId = regionId * 100 + Math.floor(rnd() * 40);
    const userId = 10_000 + Math.floor(rnd() * 20_000);
    const first = pick(rnd, FIRST);
    const last = pick(rnd, LAST);
    const shift: FinishedShift = {
      id: 1_000_000 + i,
      user_id: userId,
      user_login: `${first.toLowerCase()}.${last.toLowerCase()}${userId % 100}`,
      user_org_level: pick(rnd, LEVELS),
      user_position: pick(rnd, POSITIONS),
      user_display_name: `${first} ${last}`,
      division_id: divisionId,
      division_name: `Division ${divisionId} — North-West`,
      region_id: regionId,
      region_name: `Region ${regionId}`,
      shop_id: shopId,
      shop_sap: String(shopId).padStart(6, '0'),
      shop_locality: rnd() < 0.05 ? null : `Shop ${shopId}, Mall "Galleria"`,
      shop_address: rnd() < 0.05 ? null : `ул. Ленина, д. ${shopId % 97}, Санкт-Петербург`,
      start_time: `${formatDateTime(startUtc, 'T')}.${String(Math.floor(rnd() * 1000)).padStart(3, '0')}`,
      start_time_offset: offset,
      finish_time: formatDateTime(finishUtc, 'T'),
      finish_time_offset: offset,
      duration,
      comment: pick(rnd, COMMENTS),
      start_location_lat: hasStart ? coordinate(rnd, 59.93, 2) : null,
      start_location_lon: hasStart ? coordinate(rnd, 30.31, 2) : null,
      start_location_distance: startDistance,
      start_location_match: startMatch,
      finish_location_lat: hasFinish ? coordinate(rnd, 59.93, 2) : null,
      finish_location_lon: hasFinish ? coordinate(rnd, -30.31, 2) : null,
      finish_location_distance: finishDistance,
      finish_location_match: finishMatch,
      auto_finished: rnd() < 0.07,
    };
    const flags = finishUtc - startUtc === duration ? '' : 'duration_mismatch';
    out.push({
      shift,
      startUtc,
      finishUtc,
      startLocal,
      finishLocal: finishUtc + offset * 60,
      businessDay: Math.floor(startLocal / 86_400),
      locationStatus: locationStatusOf(startMatch, finishMatch),
      qualityFlags: flags,
      divisionExternalId: `DIV-${String(divisionId).padStart(3, '0')}`,
      divisionManagers: `Olga Smirnova <olga.smirnova>; Ivan Petrov <ivan.petrov${divisionId}>`,
    });
  }
  return out;
}
