// The aggregate stage: location-match statistics per division, region, shop and user, per business
// date (all divisions, and each division), and overall.
// Memory grows with the number of groups and of distinct distances, never with rows. Groups are
// keyed by id and labelled with the names of their latest row; divisions listed in the metadata
// without a shift appear with zero shifts and their metadata name.
//
// User and shop groups, the many, live in memory up to a budget (EXPORT_MEMORY_MB: their estimated
// bytes, and the thread's measured memory, group-memory.ts) and spill to sorted runs on disk beyond
// it, merged at the end with the same exact statistics (group-spill.ts); divisions and regions are
// few and always stay.
//
// Labels are replaced only when they change: keeping the latest row's own string (or the row)
// would keep every row alive until its group's next row, which costs more GC than everything else.
//
// Tables are sorted by name, then id, with a fixed, locale-independent order: names compared after
// toLowerCase() (Unicode default case mapping, no locale) by UTF-16 code units, ties broken by the
// name as sent, then by id. Deterministic on every machine, whatever its ICU data.

import type { FinishedShift } from 'wfm-contract/finished-shift';
import type { ShiftRecord } from '../domain/shift-record.js';
import {
  ALL_DIVISIONS_LABEL,
  type DaySummary,
  type DivisionSummary,
  type ExportSummaries,
  type RegionSummary,
  type ShopSummary,
  type SummaryRows,
  type UserSummary,
} from '../domain/summary.js';
import type { DivisionDirectory } from './enrich.js';
import { GroupAccumulator } from './group-accumulator.js';
import { GROUP_BYTES, labelBytes, MemoryBudget, SUMMARY_BYTES, type GroupMemory } from './group-memory.js';
import { SpilledGroups } from './group-spill.js';
import { sortByNameThenId } from './name-order.js';
import { PendingDistances } from './pending-distances.js';
import type { SpillLevel } from './spill-level.js';

/** What the statistics read of a row: its groups, their labels, and the facts counted. */
export type AggregateShift = Pick<
  FinishedShift,
  | 'division_id'
  | 'division_name'
  | 'region_id'
  | 'region_name'
  | 'shop_id'
  | 'shop_sap'
  | 'shop_locality'
  | 'user_id'
  | 'user_login'
  | 'user_display_name'
  | 'duration'
  | 'start_location_match'
  | 'finish_location_match'
  | 'auto_finished'
  | 'start_location_distance'
  | 'finish_location_distance'
>;

class DivisionGroup {
  readonly stats: GroupAccumulator;
  name: string;
  constructor(shift: AggregateShift, slab: PendingDistances) {
    this.stats = new GroupAccumulator(slab);
    this.name = shift.division_name;
  }
  add(shift: AggregateShift): void {
    this.stats.add(shift);
    if (this.name !== shift.division_name) this.name = shift.division_name;
  }
}

class RegionGroup {
  readonly stats: GroupAccumulator;
  name: string;
  divisionId: number;
  divisionName: string;
  constructor(shift: AggregateShift, slab: PendingDistances) {
    this.stats = new GroupAccumulator(slab);
    this.name = shift.region_name;
    this.divisionId = shift.division_id;
    this.divisionName = shift.division_name;
  }
  add(shift: AggregateShift): void {
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
  constructor(shift: AggregateShift, slab: PendingDistances) {
    this.stats = new GroupAccumulator(slab);
    this.sap = shift.shop_sap;
    this.locality = shift.shop_locality;
    this.regionName = shift.region_name;
    this.divisionName = shift.division_name;
  }
  add(shift: AggregateShift): void {
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
  constructor(shift: AggregateShift, slab: PendingDistances) {
    this.stats = new GroupAccumulator(slab);
    this.login = shift.user_login;
    this.displayName = shift.user_display_name;
  }
  add(shift: AggregateShift): void {
    this.stats.add(shift);
    if (this.login !== shift.user_login) this.login = shift.user_login;
    if (this.displayName !== shift.user_display_name) this.displayName = shift.user_display_name;
  }
}

/** One business date: all its shifts, and its shifts per division id. */
class DayGroup {
  readonly all: GroupAccumulator;
  readonly divisions = new Map<number, GroupAccumulator>();
  constructor(private readonly slab: PendingDistances) {
    this.all = new GroupAccumulator(slab);
  }
  add(shift: AggregateShift): void {
    this.all.add(shift);
    let division = this.divisions.get(shift.division_id);
    if (division === undefined) {
      division = new GroupAccumulator(this.slab);
      this.divisions.set(shift.division_id, division);
    }
    division.add(shift);
  }
}

export { sortByNameThenId } from './name-order.js';

/** The shop groups as they spill, and their summaries as they are sorted (exported: read elsewhere too). */
export const SHOP_LEVEL: SpillLevel<ShopGroup, ShopSummary> = {
  label: 'shops',
  labelCount: 4,
  labels: (g) => [g.sap, g.locality, g.regionName, g.divisionName],
  summaryLabels: (s) => [s.shopSap, s.shopLocality, s.regionName, s.divisionName],
  summary: (shopId, [sap, locality, regionName, divisionName], stats) => ({
    shopId,
    shopSap: sap ?? '',
    shopLocality: locality ?? null,
    regionName: regionName ?? '',
    divisionName: divisionName ?? '',
    stats,
  }),
  id: (s) => s.shopId,
  // A shop without a locality sorts as an empty name (first), then by id.
  name: (s) => s.shopLocality ?? '',
};

export const USER_LEVEL: SpillLevel<UserGroup, UserSummary> = {
  label: 'users',
  labelCount: 2,
  labels: (g) => [g.login, g.displayName],
  summaryLabels: (s) => [s.userLogin, s.userDisplayName],
  summary: (userId, [login, displayName], stats) => ({
    userId,
    userLogin: login ?? '',
    userDisplayName: displayName ?? '',
    stats,
  }),
  id: (s) => s.userId,
  name: (s) => s.userDisplayName,
};

export class ShiftAggregator {
  /** Pending distances of every small group. */
  private readonly slab = new PendingDistances();
  private readonly overall = new GroupAccumulator(this.slab);
  private readonly divisions = new Map<number, DivisionGroup>();
  private readonly regions = new Map<number, RegionGroup>();
  private readonly shops = new Map<number, ShopGroup>();
  private readonly users = new Map<number, UserGroup>();
  private readonly days = new Map<number, DayGroup>();
  private readonly spilledShops: SpilledGroups<ShopGroup, ShopSummary> | null;
  private readonly spilledUsers: SpilledGroups<UserGroup, UserSummary> | null;
  private readonly budget: MemoryBudget;
  /** Estimated bytes of the shop and of the user groups in memory. */
  private shopBytes = 0;
  private userBytes = 0;

  /** Without `memory`, every group stays in memory (tests, the bench's in-process lines). */
  constructor(
    private readonly directory: DivisionDirectory,
    memory?: GroupMemory,
  ) {
    this.budget = new MemoryBudget(memory);
    this.spilledShops = memory === undefined ? null : new SpilledGroups(SHOP_LEVEL, memory);
    this.spilledUsers = memory === undefined ? null : new SpilledGroups(USER_LEVEL, memory);
  }

  /** Adds one exported row. */
  add(record: ShiftRecord): void {
    this.addShift(record.shift, record.businessDay);
  }

  /** Adds one exported row by what the statistics read of it, of business day `businessDay`. */
  addShift(shift: AggregateShift, businessDay: number): void {
    this.overall.add(shift);
    const { division_id: divisionId, region_id: regionId, shop_id: shopId, user_id: userId } = shift;
    const division =
      this.divisions.get(divisionId) ?? this.newGroup(this.divisions, divisionId, DivisionGroup, shift);
    division.add(shift);
    const region = this.regions.get(regionId) ?? this.newGroup(this.regions, regionId, RegionGroup, shift);
    region.add(shift);
    let shop = this.shops.get(shopId);
    if (shop === undefined) {
      shop = this.newGroup(this.shops, shopId, ShopGroup, shift);
      this.shopBytes += GROUP_BYTES + labelBytes(SHOP_LEVEL.labels(shop));
    }
    shop.add(shift);
    let user = this.users.get(userId);
    if (user === undefined) {
      user = this.newGroup(this.users, userId, UserGroup, shift);
      this.userBytes += GROUP_BYTES + 2 * (shift.user_login.length + shift.user_display_name.length);
    }
    user.add(shift);
    let day = this.days.get(businessDay);
    if (day === undefined) {
      day = new DayGroup(this.slab);
      this.days.set(businessDay, day);
    }
    day.add(shift);
    if (this.budget.exceeded(this.shopBytes + this.userBytes)) this.spill();
  }

  /**
   * Whether a level's summaries go through its runs: it spilled already, or its summaries would
   * pass the budget beside the groups still held (then the groups spill first and free their room).
   */
  private mustSpill(spilled: { readonly spilled: boolean } | null, groups: number): boolean {
    if (spilled === null) return false;
    return spilled.spilled || this.budget.wouldPass(this.shopBytes + this.userBytes, groups * SUMMARY_BYTES);
  }

  /** Writes the user and shop groups to their runs on disk and starts them again empty. */
  private spill(): void {
    // A level that holds little of the budget (the few shops beside a crowd of users) stays: its
    // groups would only be written again and again.
    const share = (this.shopBytes + this.userBytes) / 8;
    if (this.shopBytes >= share) {
      this.spilledShops?.spill(this.shops);
      this.shopBytes = 0;
    }
    if (this.userBytes >= share) {
      this.spilledUsers?.spill(this.users);
      this.userBytes = 0;
    }
  }

  private newGroup<G>(
    groups: Map<number, G>,
    id: number,
    Group: new (shift: AggregateShift, slab: PendingDistances) => G,
    shift: AggregateShift,
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
      days: this.daySummaries(),
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

  /**
   * Only the days and divisions with shifts; a division is labelled with its name in the division
   * summary (its latest row's), so one division keeps one name down the table.
   */
  private daySummaries(): DaySummary[] {
    const summaries: DaySummary[] = [];
    const days = [...this.days.keys()].sort((a, b) => a - b);
    for (const businessDay of days) {
      const day = this.days.get(businessDay)!;
      summaries.push({
        businessDay,
        divisionId: null,
        divisionName: ALL_DIVISIONS_LABEL,
        stats: day.all.stats(),
      });
      const divisions: DaySummary[] = [];
      for (const [divisionId, stats] of day.divisions) {
        divisions.push({
          businessDay,
          divisionId,
          divisionName: this.divisions.get(divisionId)!.name,
          stats: stats.stats(),
        });
      }
      summaries.push(
        ...sortByNameThenId(
          divisions,
          (s) => s.divisionName,
          (s) => s.divisionId!,
        ),
      );
    }
    return summaries;
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
  private shopSummaries(): SummaryRows<ShopSummary> {
    if (this.mustSpill(this.spilledShops, this.shops.size)) return this.spilledShops!.summaries(this.shops);
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

  private userSummaries(): SummaryRows<UserSummary> {
    if (this.mustSpill(this.spilledUsers, this.users.size)) return this.spilledUsers!.summaries(this.users);
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
