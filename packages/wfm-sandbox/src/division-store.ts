// Divisions of one sandbox instance: the generated organisation plus what the API creates and
// updates. Renaming a generated division renames it in the report too, so the report and the
// division list always agree.

import {
  DEFAULT_DIVISION_FIELDS,
  type Division,
  type DivisionCreate,
  type DivisionField,
  type DivisionListQuery,
  type DivisionManager,
  type DivisionUpdate,
} from 'wfm-contract/division';
import type { World } from './generate-world.js';
import type { ShiftGenerator } from './shift-generator.js';
import { BUSINESS_DIRS } from './world-tables.js';

interface DivisionRecord {
  readonly id: number;
  externalId: string | null;
  name: string;
  active: boolean;
  /** Index in World.divisions; undefined for divisions created through the API. */
  readonly worldIndex: number | undefined;
  readonly regions: readonly number[];
  readonly managers: readonly number[];
  readonly shopIds: ReadonlySet<number>;
  readonly userIds: ReadonlySet<number>;
}

export interface DivisionRegionView {
  readonly id: number;
  readonly externalId: string;
  readonly name: string;
  readonly active: boolean;
  readonly shopsCount: number;
}

export interface DivisionManagerView extends DivisionManager {
  /** Added by fields=dirsWithBusinessDirs. */
  readonly businessDir?: { readonly id: number; readonly name: string };
}

export type DivisionView = Omit<Division, 'dirs'> & {
  dirs?: DivisionManagerView[];
  regions?: DivisionRegionView[];
};

export class DivisionStore {
  private readonly records: DivisionRecord[];
  private readonly world: World;
  private readonly generator: ShiftGenerator;

  constructor(world: World, generator: ShiftGenerator) {
    this.world = world;
    this.generator = generator;
    this.records = world.divisions.map((d, worldIndex) => {
      const shopIndexes = d.regions.flatMap((r) => world.regions[r]?.shops ?? []);
      const shopSet = new Set(shopIndexes);
      return {
        id: d.id,
        externalId: d.externalId,
        name: d.name,
        active: d.active,
        worldIndex,
        regions: d.regions,
        managers: d.managers,
        shopIds: new Set(shopIndexes.map((s) => world.shops[s]?.id ?? 0)),
        userIds: new Set([
          ...d.managers.map((m) => world.users[m]?.id ?? 0),
          ...world.users.filter((u) => shopSet.has(u.homeShop)).map((u) => u.id),
        ]),
      };
    });
  }

  list(query: DivisionListQuery): DivisionView[] {
    const nameLike = query.nameLike?.toLowerCase();
    const search = query.search?.toLowerCase();
    return this.records
      .filter((d) => {
        if (query.ids !== undefined && !query.ids.includes(d.id)) return false;
        if (nameLike !== undefined && !d.name.toLowerCase().includes(nameLike)) return false;
        if (query.userId !== undefined && !d.userIds.has(query.userId)) return false;
        if (query.shopId !== undefined && !d.shopIds.has(query.shopId)) return false;
        if (query.active !== undefined && d.active !== query.active) return false;
        if (query.withDirs === true && d.managers.length === 0) return false;
        const managers = d.managers.flatMap((m) => this.world.users[m] ?? []);
        if (
          query.businessDirId !== undefined &&
          !managers.some((m) => m.businessDirId === query.businessDirId)
        ) {
          return false;
        }
        if (
          search !== undefined &&
          !d.name.toLowerCase().includes(search) &&
          !managers.some((m) => `${m.firstName}\n${m.lastName}`.toLowerCase().includes(search))
        ) {
          return false;
        }
        return true;
      })
      .map((d) => this.view(d, query.fields ?? DEFAULT_DIVISION_FIELDS));
  }

  get(id: number, fields: readonly DivisionField[] = DEFAULT_DIVISION_FIELDS): DivisionView | undefined {
    const record = this.records.find((d) => d.id === id);
    return record === undefined ? undefined : this.view(record, fields);
  }

  create(input: DivisionCreate): DivisionView {
    const record: DivisionRecord = {
      id: Math.max(0, ...this.records.map((d) => d.id)) + 1,
      externalId: input.externalId ?? null,
      name: input.name,
      active: input.active ?? true,
      worldIndex: undefined,
      regions: [],
      managers: [],
      shopIds: new Set(),
      userIds: new Set(),
    };
    this.records.push(record);
    return this.view(record, DEFAULT_DIVISION_FIELDS);
  }

  /** An omitted externalId keeps the current one; name and active are replaced. */
  update(id: number, input: DivisionUpdate): DivisionView | undefined {
    const record = this.records.find((d) => d.id === id);
    if (record === undefined) return undefined;
    if (input.externalId !== undefined) record.externalId = input.externalId;
    record.active = input.active;
    if (record.name !== input.name) {
      record.name = input.name;
      if (record.worldIndex !== undefined) this.generator.renameDivision(record.worldIndex, input.name);
    }
    return this.view(record, DEFAULT_DIVISION_FIELDS);
  }

  private view(d: DivisionRecord, fields: readonly DivisionField[]): DivisionView {
    const view: DivisionView = {
      id: d.id,
      externalId: d.externalId,
      name: d.name,
      active: d.active,
      regionsCount: d.regions.length,
      shopsCount: d.shopIds.size,
    };
    const withBusinessDirs = fields.includes('dirsWithBusinessDirs');
    if (withBusinessDirs || fields.includes('dirs')) {
      view.dirs = d.managers.flatMap((m) => {
        const u = this.world.users[m];
        if (u === undefined) return [];
        const manager: DivisionManagerView = {
          id: u.id,
          active: u.active,
          login: u.login,
          firstName: u.firstName,
          lastName: u.lastName,
          position: u.position ?? '',
          level: 'DIVISION',
          businessDirId: u.businessDirId,
          lang: u.lang,
          invited: u.invited,
          inviteAccepted: u.inviteAccepted,
          inviteAcceptedAt: u.inviteAcceptedAt,
        };
        const dir = BUSINESS_DIRS.find((b) => b.id === u.businessDirId);
        return [withBusinessDirs && dir !== undefined ? { ...manager, businessDir: { ...dir } } : manager];
      });
    }
    if (fields.includes('regions')) {
      view.regions = d.regions.flatMap((r) => {
        const region = this.world.regions[r];
        if (region === undefined) return [];
        return [
          {
            id: region.id,
            externalId: region.externalId,
            name: region.name,
            active: region.active,
            shopsCount: region.shops.length,
          },
        ];
      });
    }
    return view;
  }
}
