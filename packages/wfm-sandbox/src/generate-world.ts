// The organisation behind the sandbox's data, generated from the seed: divisions → regions →
// shops, and the users who work there (some of them appointed division managers). Every shop of a
// region shares the region's UTC offset, and so do the users whose home shop it is: a shift's
// offset, user and shop always agree.

import { formatDateTime } from 'wfm-contract/civil-time';
import type { OrgLevel } from 'wfm-contract/finished-shift';
import { SeededRandom, mix32 } from './random.js';
import {
  BUSINESS_DIRS,
  DIVISION_TABLE,
  LANGS,
  LATIN_FIRST_NAMES,
  LATIN_LAST_NAMES,
  LATIN_MALLS,
  LATIN_POSITIONS,
  LATIN_STREETS,
  PLACE_TABLE,
  RU_FIRST_NAMES,
  RU_LAST_NAMES,
  RU_MALLS,
  RU_POSITIONS,
  RU_STREETS,
  type Place,
} from './world-tables.js';
import { transliterate } from './transliterate.js';

export interface WorldDivision {
  readonly id: number;
  readonly externalId: string | null;
  readonly name: string;
  readonly active: boolean;
  /** Indexes into World.regions. */
  readonly regions: readonly number[];
  /** Indexes into World.users of the division's managers (dirs). */
  readonly managers: readonly number[];
}

export interface WorldRegion {
  readonly id: number;
  readonly externalId: string;
  readonly name: string;
  readonly active: boolean;
  readonly division: number;
  /** Index into PLACE_TABLE. */
  readonly place: number;
  readonly offset: number;
  /** Indexes into World.shops. */
  readonly shops: readonly number[];
}

export interface WorldShop {
  readonly id: number;
  readonly sap: string;
  readonly locality: string | null;
  readonly address: string | null;
  /** Null for the few shops whose coordinates were never set: their distances are unknown. */
  readonly lat: number | null;
  readonly lon: number | null;
  readonly region: number;
  readonly division: number;
  readonly offset: number;
}

export interface WorldUser {
  readonly id: number;
  readonly login: string;
  readonly orgLevel: OrgLevel;
  readonly position: string | null;
  readonly displayName: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly homeShop: number;
  readonly offset: number;
  readonly lang: string;
  readonly businessDirId: number;
  readonly active: boolean;
  readonly invited: boolean;
  readonly inviteAccepted: boolean;
  readonly inviteAcceptedAt: string;
}

export interface World {
  readonly divisions: readonly WorldDivision[];
  readonly regions: readonly WorldRegion[];
  readonly shops: readonly WorldShop[];
  readonly users: readonly WorldUser[];
}

export const MIN_USERS = 400;
export const MAX_USERS = 5000;

/** Users scale with the report (about one per 20 shifts) within [MIN_USERS, MAX_USERS]. */
export function userCountFor(rows: number): number {
  return Math.min(MAX_USERS, Math.max(MIN_USERS, Math.ceil(rows / 20)));
}

const EMAIL_DOMAIN = 'retail-sandbox.example';

/**
 * The world of `seed`; with `divisionCount`, its shops dealt round-robin to that many plain
 * divisions (`Division N`, no managers) instead of the table's: a chain of many divisions, the
 * bench's --split line (200).
 */
export function generateWorld(seed: number, rows: number, divisionCount?: number): World {
  const world = tableWorld(seed, rows);
  return divisionCount === undefined ? world : withDivisions(world, divisionCount);
}

function withDivisions(world: World, count: number): World {
  const shops = world.shops.map((shop, i) => ({ ...shop, division: i % count }));
  const regions = world.regions.map((region) => ({
    ...region,
    division: shops[region.shops[0] ?? -1]?.division ?? 0,
  }));
  const divisions = Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    externalId: `DIV-${String(index + 1).padStart(3, '0')}`,
    name: `Division ${index + 1}`,
    active: true,
    regions: regions.flatMap((r, i) => (r.division === index ? [i] : [])),
    managers: [],
  }));
  return { divisions, regions, shops, users: world.users };
}

function tableWorld(seed: number, rows: number): World {
  const rnd = new SeededRandom(mix32(seed ^ 0x5eed_0001));
  const regions: (WorldRegion & { shops: number[] })[] = [];
  const shops: WorldShop[] = [];
  const saps = new Set<string>();

  PLACE_TABLE.forEach((place, placeIndex) => {
    // Moscow is big enough for two regions.
    const names = place.city === 'Москва' ? [`${place.city}-Север`, `${place.city}-Юг`] : [place.city];
    for (const name of names) {
      const regionIndex = regions.length;
      const region = {
        id: 2000 + regionIndex * 10 + rnd.int(10),
        externalId: `REG-${String(placeIndex + 1).padStart(3, '0')}${names.length > 1 ? `-${regionIndex}` : ''}`,
        name: place.cyrillic ? `Регион ${name}` : `${name} Region`,
        active: DIVISION_TABLE[place.division]?.active ?? true,
        division: place.division,
        place: placeIndex,
        offset: place.offset,
        shops: [] as number[],
      };
      regions.push(region);
      const shopCount = 4 + rnd.int(9);
      for (let k = 0; k < shopCount; k++) {
        region.shops.push(shops.length);
        shops.push(makeShop(rnd, place, shops.length, regionIndex, uniqueSap(rnd, saps)));
      }
    }
  });

  const userCount = userCountFor(rows);
  const logins = new Set<string>();
  const users: WorldUser[] = [];
  for (let k = 0; k < userCount; k++) {
    // Round-robin first, so every shop (and so every offset) has at least one user.
    const homeShop = k < shops.length ? k : rnd.int(shops.length);
    const shop = shops[homeShop];
    const place = shop === undefined ? undefined : PLACE_TABLE[regions[shop.region]?.place ?? -1];
    if (shop === undefined || place === undefined) throw new Error('world: shop without a place');
    users.push(makeUser(rnd, place, 10_000 + k * 3 + rnd.int(3), homeShop, shop.offset, logins, false));
  }

  const divisions: WorldDivision[] = DIVISION_TABLE.map((template, index) => {
    const regionIndexes = regions.flatMap((r, i) => (r.division === index ? [i] : []));
    const candidates = users.flatMap((u, i) => (shops[u.homeShop]?.division === index ? [i] : []));
    const managers: number[] = [];
    for (let m = 0; m < template.managers && candidates.length > 0; m++) {
      const userIndex = candidates[(m * 7 + rnd.int(candidates.length)) % candidates.length] ?? 0;
      if (managers.includes(userIndex)) continue;
      managers.push(userIndex);
      const user = users[userIndex];
      const region = user === undefined ? undefined : regions[shops[user.homeShop]?.region ?? -1];
      const place = region === undefined ? undefined : PLACE_TABLE[region.place];
      if (user === undefined || place === undefined) continue;
      users[userIndex] = makeUser(rnd, place, user.id, user.homeShop, user.offset, logins, true);
    }
    return {
      id: index + 1,
      externalId: template.externalId,
      name: template.name,
      active: template.active,
      regions: regionIndexes,
      managers,
    };
  });

  appointManagerRoster(divisions, users);
  return { divisions, regions, shops, users };
}

/**
 * The manager lists a client that mails division managers must cope with, placed by position and
 * not by chance (no random draw, so the rest of the world stays as the seed made it): every
 * manager is an active user with an accepted invite and an e-mail login, except the ones below.
 * Names in Cyrillic come with the Russian divisions.
 */
const MANAGER_EXCEPTIONS: readonly {
  readonly division: number;
  readonly manager: number;
  readonly change: (user: WorldUser) => WorldUser;
}[] = [
  // Appointed, but the account is switched off.
  { division: 0, manager: 2, change: (u) => ({ ...u, active: false }) },
  // Invited, never accepted.
  { division: 1, manager: 1, change: (u) => ({ ...u, inviteAccepted: false }) },
  // A login that is a user name, not an address.
  {
    division: 2,
    manager: 1,
    change: (u) => {
      const login = u.login.replace(/@.*$/, '');
      return { ...u, login, displayName: u.displayName === u.login ? login : u.displayName };
    },
  },
  // A first name pasted with a line break and a header after it: it must never become a header.
  {
    division: 4,
    manager: 1,
    change: (u) => ({ ...u, firstName: `${u.firstName}\r\nBcc: intruder@evil.example` }),
  },
];

function appointManagerRoster(divisions: readonly WorldDivision[], users: WorldUser[]): void {
  for (const division of divisions) {
    for (const index of division.managers) {
      const user = users[index];
      if (user !== undefined) users[index] = { ...user, active: true, inviteAccepted: true };
    }
  }
  for (const { division, manager, change } of MANAGER_EXCEPTIONS) {
    // A division can be appointed fewer managers than its table asks (one candidate drawn twice).
    const managers = divisions[division]?.managers ?? [];
    const index = managers[Math.min(manager, managers.length - 1)];
    const user = index === undefined ? undefined : users[index];
    if (index !== undefined && user !== undefined) users[index] = change(user);
  }
}

function uniqueSap(rnd: SeededRandom, taken: Set<string>): string {
  for (;;) {
    // About one SAP number in five has leading zeros: they must survive as text.
    const sap = rnd.chance(0.2)
      ? `0${String(rnd.int(10_000)).padStart(rnd.chance(0.5) ? 3 : 4, '0')}`
      : String(rnd.between(1000, 99_999));
    if (!taken.has(sap)) {
      taken.add(sap);
      return sap;
    }
  }
}

function makeShop(rnd: SeededRandom, place: Place, index: number, region: number, sap: string): WorldShop {
  const house = rnd.between(1, 250);
  let locality: string | null;
  let address: string | null;
  if (place.cyrillic) {
    const mall = rnd.pick(RU_MALLS);
    const street = rnd.pick(RU_STREETS);
    locality = `${place.city}, ${mall}`;
    address =
      `${place.country}, ${rnd.between(100_000, 699_999)}, г. ${place.city}, ${street}, д. ${house}` +
      `${rnd.chance(0.4) ? `, корп. ${rnd.between(1, 9)}` : ''}, ${mall}, ${rnd.between(1, 4)} этаж, ` +
      `помещение ${rnd.between(1, 450)}${rnd.chance(0.3) ? ' (вход со двора, рядом с аптекой)' : ''}`;
  } else {
    const mall = rnd.pick(LATIN_MALLS);
    const street = rnd.pick(LATIN_STREETS);
    locality = `${place.city} — ${mall}`;
    address =
      `${mall}, Unit ${rnd.between(1, 300)}${rnd.chance(0.5) ? `, Level ${rnd.between(1, 4)}` : ''}, ` +
      `${house} ${street}, ${place.city}, ${place.country}, ${rnd.between(10_000, 99_999)}` +
      `${rnd.chance(0.3) ? ' (loading dock entrance at the rear, next to the pharmacy)' : ''}`;
  }
  if (rnd.chance(0.03)) locality = null;
  if (rnd.chance(0.02)) address = null;
  const located = !rnd.chance(0.03);
  return {
    id: 100 + index * 7 + rnd.int(5),
    sap,
    locality,
    address,
    lat: located ? round6(place.lat + (rnd.next() - 0.5) * 0.3) : null,
    lon: located ? round6(place.lon + (rnd.next() - 0.5) * 0.3) : null,
    region,
    division: place.division,
    offset: place.offset,
  };
}

function makeUser(
  rnd: SeededRandom,
  place: Place,
  id: number,
  homeShop: number,
  offset: number,
  logins: Set<string>,
  manager: boolean,
): WorldUser {
  const firstName = place.cyrillic ? rnd.pick(RU_FIRST_NAMES) : rnd.pick(LATIN_FIRST_NAMES);
  const lastName = place.cyrillic ? rnd.pick(RU_LAST_NAMES) : rnd.pick(LATIN_LAST_NAMES);
  const first = transliterate(firstName);
  const last = transliterate(lastName);
  const email = manager || rnd.chance(0.6);
  const base = email ? `${first}.${last}` : `${last}.${first.slice(0, 1)}`;
  let login = email ? `${base}@${EMAIL_DOMAIN}` : base;
  for (let n = 2; logins.has(login); n++) login = email ? `${base}${n}@${EMAIL_DOMAIN}` : `${base}${n}`;
  logins.add(login);
  const level: OrgLevel = manager ? 'DIVISION' : pickLevel(rnd.next());
  const positions = place.cyrillic ? RU_POSITIONS : LATIN_POSITIONS;
  const position = manager
    ? place.cyrillic
      ? 'Директор дивизиона'
      : 'Division Director'
    : rnd.chance(0.05)
      ? null
      : rnd.pick(positions);
  const acceptedAt = 1_672_531_200 + rnd.int(365 * 86_400);
  return {
    id,
    login,
    orgLevel: level,
    position,
    // Users without a name on file are shown by their login.
    displayName: rnd.chance(0.05) ? login : `${firstName} ${lastName}`,
    firstName,
    lastName,
    homeShop,
    offset,
    lang: place.cyrillic ? (rnd.chance(0.9) ? 'ru_RU' : 'kk_KZ') : rnd.pick(LANGS),
    businessDirId: rnd.pick(BUSINESS_DIRS).id,
    active: !rnd.chance(0.03),
    invited: true,
    inviteAccepted: !rnd.chance(0.1),
    inviteAcceptedAt: `${formatDateTime(acceptedAt, 'T')}.${String(rnd.int(1_000_000)).padStart(6, '0')}`,
  };
}

function pickLevel(u: number): OrgLevel {
  if (u < 0.85) return 'SHOP';
  if (u < 0.93) return 'REGION';
  if (u < 0.98) return 'DIVISION';
  return 'COMPANY';
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
