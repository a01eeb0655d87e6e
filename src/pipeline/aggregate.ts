// The aggregate stage: location-match statistics per division, region, shop and user, and overall.
// Memory grows with the number of groups and of distinct distances, never with rows. Groups are
// keyed by id and labelled with the names of their latest row; divisions listed in the metadata
// without a shift appear with zero shifts and their metadata name.
//
// Labels are replaced only when they change: keeping the latest row's own string (or the row)
// would keep every row alive until its group's next row, which costs more GC than everything else.
//
// Tables are sorted by name, then id, with a fixed, locale-independent order: names compared after
// toLowerCase() (Unicode default case mapping, no locale) by UTF-16 code units, ties broken by the
// name as sent, then by id. Deterministic on every machine, whatever its ICU data.

import type { FinishedShift } from '../domain/finished-shift.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type {
  DivisionSummary,
  ExportSummaries,
  RegionSummary,
  ShopSummary,
  UserSummary,
} from '../domain/summary.js';
import type { DivisionDirectory } from './enrich.js';
import { GroupAccumulator } from './group-accumulator.js';
import { PairSlab } from './pair-slab.js';

class DivisionGroup {
  readonly stats: GroupAccumulator;
  name: string;
  constructor(shift: FinishedShift, slab: PairSlab) {
    this.stats = new GroupAccumulator(slab);
    this.name = shift.division_name;
  }
  add(shift: FinishedShift): void {
    this.stats.add(shift);
    if (this.name !== shift.division_name) this.name = shift.division_name;
  }
}

class RegionGroup {
  readonly stats: GroupAccumulator;
  name: string;
  divisionId: number;
  divisionName: string;
  constructor(shift: FinishedShift, slab: PairSlab) {
    this.stats = new GroupAccumulator(slab);
    this.name = shift.region_name;
    this.divisionId = shift.division_id;
    this.divisionName = shift.division_name;
  }
  add(shift: FinishedShift): void {
    this.stats.add(shift);
    if (this.name !== shift.region_name) this.name = shift.region_name;
    this.divisionId = shift.division_id;
    if (this.divisionName !== shift.division_name) this.divisionName = shift.division_name;
  }
}

class ShopGroup {
  readonly stats: GroupAccumulator;
  sap: string;
  locality: string | null;
  regionName: string;
  divisionName: string;
  constructor(shift: FinishedShift, slab: PairSlab) {
    this.stats = new GroupAccumulator(slab);
    this.sap = shift.shop_sap;
    this.locality = shift.shop_locality;
    this.regionName = shift.region_name;
    this.divisionName = shift.division_name;
  }
  add(shift: FinishedShift): void {
    this.stats.add(shift);
    if (this.sap !== shift.shop_sap) this.sap = shift.shop_sap;
    if (this.locality !== shift.shop_locality) this.locality = shift.shop_locality;
    if (this.regionName !== shift.region_name) this.regionName = shift.region_name;
    if (this.divisionName !== shift.division_name) this.divisionName = shift.division_name;
  }
}

class UserGroup {
  readonly stats: GroupAccumulator;
  login: string;
  displayName: string;
  constructor(shift: FinishedShift, slab: PairSlab) {
    this.stats = new GroupAccumulator(slab);
    this.login = shift.user_login;
    this.displayName = shift.user_display_name;
  }
  add(shift: FinishedShift): void {
    this.stats.add(shift);
    if (this.login !== shift.user_login) this.login = shift.user_login;
    if (this.displayName !== shift.user_display_name) this.displayName = shift.user_display_name;
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts by name (case-insensitive, code-unit order, then as sent), then by id; returns the items. */
export function sortByNameThenId<T>(
  items: readonly T[],
  name: (item: T) => string,
  id: (item: T) => number,
): T[] {
  return items
    .map((item) => ({ item, name: name(item), folded: name(item).toLowerCase(), id: id(item) }))
    .sort((a, b) => compareText(a.folded, b.folded) || compareText(a.name, b.name) || a.id - b.id)
    .map((entry) => entry.item);
}

export class ShiftAggregator {
  /** Pending distances of every small group. */
  private readonly slab = new PairSlab();
  private readonly overall = new GroupAccumulator(this.slab);
  private readonly divisions = new Map<number, DivisionGroup>();
  private readonly regions = new Map<number, RegionGroup>();
  private readonly shops = new Map<number, ShopGroup>();
  private readonly users = new Map<number, UserGroup>();

  constructor(private readonly directory: DivisionDirectory) {}

  add(record: ShiftRecord): void {
    const shift = record.shift;
    this.overall.add(shift);
    const { division_id: divisionId, region_id: regionId, shop_id: shopId, user_id: userId } = shift;
    const division =
      this.divisions.get(divisionId) ?? this.newGroup(this.divisions, divisionId, DivisionGroup, shift);
    division.add(shift);
    const region = this.regions.get(regionId) ?? this.newGroup(this.regions, regionId, RegionGroup, shift);
    region.add(shift);
    const shop = this.shops.get(shopId) ?? this.newGroup(this.shops, shopId, ShopGroup, shift);
    shop.add(shift);
    const user = this.users.get(userId) ?? this.newGroup(this.users, userId, UserGroup, shift);
    user.add(shift);
  }

  private newGroup<G>(
    groups: Map<number, G>,
    id: number,
    Group: new (shift: FinishedShift, slab: PairSlab) => G,
    shift: FinishedShift,
  ): G {
    const group = new Group(shift, this.slab);
    groups.set(id, group);
    return group;
  }

  /** The summaries of everything added so far (may be called more than once). */
  finish(): ExportSummaries {
    return {
      overall: this.overall.stats(),
      divisions: this.divisionSummaries(),
      regions: this.regionSummaries(),
      shops: this.shopSummaries(),
      users: this.userSummaries(),
    };
  }

  private divisionSummaries(): DivisionSummary[] {
    const summaries: DivisionSummary[] = [];
    for (const [divisionId, group] of this.divisions) {
      summaries.push({
        divisionId,
        divisionExternalId: this.directory.get(divisionId)?.externalId ?? null,
        divisionName: group.name,
        stats: group.stats.stats(),
      });
    }
    const empty = new GroupAccumulator(this.slab).stats();
    for (const [divisionId, info] of this.directory) {
      if (this.divisions.has(divisionId)) continue;
      summaries.push({
        divisionId,
        divisionExternalId: info.externalId,
        divisionName: info.name,
        stats: empty,
      });
    }
    return sortByNameThenId(
      summaries,
      (s) => s.divisionName,
      (s) => s.divisionId,
    );
  }

  private regionSummaries(): RegionSummary[] {
    const summaries: RegionSummary[] = [];
    for (const [regionId, group] of this.regions) {
      summaries.push({
        regionId,
        regionName: group.name,
        divisionId: group.divisionId,
        divisionName: group.divisionName,
        stats: group.stats.stats(),
      });
    }
    return sortByNameThenId(
      summaries,
      (s) => s.regionName,
      (s) => s.regionId,
    );
  }

  /** A shop without a locality sorts as an empty name (first), then by id. */
  private shopSummaries(): ShopSummary[] {
    const summaries: ShopSummary[] = [];
    for (const [shopId, group] of this.shops) {
      summaries.push({
        shopId,
        shopSap: group.sap,
        shopLocality: group.locality,
        regionName: group.regionName,
        divisionName: group.divisionName,
        stats: group.stats.stats(),
      });
    }
    return sortByNameThenId(
      summaries,
      (s) => s.shopLocality ?? '',
      (s) => s.shopId,
    );
  }

  private userSummaries(): UserSummary[] {
    const summaries: UserSummary[] = [];
    for (const [userId, group] of this.users) {
      summaries.push({
        userId,
        userLogin: group.login,
        userDisplayName: group.displayName,
        stats: group.stats.stats(),
      });
    }
    return sortByNameThenId(
      summaries,
      (s) => s.userDisplayName,
      (s) => s.userId,
    );
  }
}
