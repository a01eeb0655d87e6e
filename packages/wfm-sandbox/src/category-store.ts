// Survey categories of one sandbox instance: a deterministic starting set generated from the seed
// (active and inactive, empty ones, ones with quick templates, every Template field filled), then
// whatever the API creates, updates and deletes. Ids look like the upstream's (24 hex digits).

import { formatDateTime } from 'wfm-contract/civil-time';
import type { Category, CategoryInput, CategoryListQuery, Template } from 'wfm-contract/category';
import { mix32, SeededRandom } from './random.js';

export const SANDBOX_TENANT = 'sandbox';

const SEED_CATEGORIES: readonly {
  name: string;
  active: boolean;
  templates: readonly string[];
  quick: number;
}[] = [
  {
    name: 'Открытие магазина',
    active: true,
    templates: ['Чек-лист открытия', 'Проверка кассовой зоны', 'Витрины'],
    quick: 1,
  },
  { name: 'Закрытие смены', active: true, templates: ['Чек-лист закрытия', 'Инкассация'], quick: 0 },
  {
    name: 'Санитарный контроль',
    active: true,
    templates: ['Холодильное оборудование, температура', 'Уборка "зала"'],
    quick: 0,
  },
  {
    name: 'Visual merchandising audit',
    active: true,
    templates: ['Planogram compliance', 'Promo stand, end caps'],
    quick: 2,
  },
  { name: 'Fire safety', active: true, templates: ['Monthly extinguisher check'], quick: 0 },
  {
    name: 'Quick checks',
    active: true,
    templates: ['Queue length', 'Fitting rooms', 'Entrance clean?'],
    quick: 3,
  },
  { name: 'Customer service survey', active: false, templates: ['Mystery shopper, 2023'], quick: 0 },
  { name: 'Архив 2022', active: false, templates: [], quick: 0 },
  { name: 'Empty category', active: true, templates: [], quick: 0 },
  {
    name: 'Инвентаризация',
    active: true,
    templates: ['Выборочная инвентаризация', 'Полная инвентаризация', 'Сверка остатков'],
    quick: 1,
  },
];

export class CategoryStore {
  private readonly categories = new Map<string, Category>();
  private readonly random: SeededRandom;
  private sequence = 0;

  constructor(seed: number, authorIds: readonly number[]) {
    this.random = new SeededRandom(mix32(seed ^ 0xca7e));
    for (const seedCategory of SEED_CATEGORIES) {
      const id = this.nextId();
      const templates = seedCategory.templates.map((name, i) =>
        this.template(id, seedCategory.name, name, i < seedCategory.quick, authorIds),
      );
      const r = this.random;
      this.categories.set(id, {
        id,
        name: seedCategory.name,
        tenant: SANDBOX_TENANT,
        active: seedCategory.active,
        templateIds: templates.map((t) => t.id),
        templates,
        unavailableIfBusinessDirIds: r.chance(0.5) ? null : [r.between(1, 5)],
        unavailableIfGroupIds: r.chance(0.6) ? null : [r.between(1, 40), r.between(41, 80)],
        unavailableIfUserIds: r.chance(0.7) ? null : [],
      });
    }
  }

  list(filter: CategoryListQuery): Category[] {
    return [...this.categories.values()].filter((c) => {
      if (filter.active !== undefined && c.active !== filter.active) return false;
      if (filter.quick !== undefined && c.templates.some((t) => t.quick) !== filter.quick) return false;
      if (filter.notEmpty === true && c.templates.length === 0) return false;
      return true;
    });
  }

  get(id: string): Category | undefined {
    return this.categories.get(id);
  }

  create(input: CategoryInput): Category {
    const category: Category = {
      id: this.nextId(),
      name: input.name,
      tenant: SANDBOX_TENANT,
      active: input.active,
      templateIds: [],
      templates: [],
      unavailableIfBusinessDirIds: input.unavailableIfBusinessDirIds ?? null,
      unavailableIfGroupIds: input.unavailableIfGroupIds ?? null,
      unavailableIfUserIds: input.unavailableIfUserIds ?? null,
    };
    this.categories.set(category.id, category);
    return category;
  }

  /** PUT semantics: every member is replaced (an omitted list becomes null); templates stay. */
  update(id: string, input: CategoryInput): Category | undefined {
    const existing = this.categories.get(id);
    if (existing === undefined) return undefined;
    const updated: Category = {
      ...existing,
      name: input.name,
      active: input.active,
      templates: existing.templates.map((t) => ({ ...t, categoryName: input.name })),
      unavailableIfBusinessDirIds: input.unavailableIfBusinessDirIds ?? null,
      unavailableIfGroupIds: input.unavailableIfGroupIds ?? null,
      unavailableIfUserIds: input.unavailableIfUserIds ?? null,
    };
    this.categories.set(id, updated);
    return updated;
  }

  delete(id: string): boolean {
    return this.categories.delete(id);
  }

  private nextId(): string {
    const n = this.sequence++;
    const hex = (x: number): string => (x >>> 0).toString(16).padStart(8, '0');
    return hex(0x65a0_0000 + n * 977) + hex(mix32(this.random.int(2 ** 32))) + hex(n);
  }

  private template(
    categoryId: string,
    categoryName: string,
    name: string,
    quick: boolean,
    authorIds: readonly number[],
  ): Template {
    const r = this.random;
    const modified = 1_704_067_200 + r.int(300 * 86_400);
    const millis = String(r.int(1000)).padStart(3, '0');
    const withGrades = r.chance(0.4);
    return {
      id: this.nextId(),
      type: 'SURVEY',
      categoryId,
      categoryName,
      deleted: false,
      hidden: r.chance(0.15),
      name,
      authorId: authorIds.length > 0 ? r.pick(authorIds) : 1,
      withGrades,
      showGrades: withGrades && r.chance(0.5),
      loadFromGalleryProhibited: r.chance(0.3),
      questionsCount: quick ? r.between(1, 5) : r.between(5, 60),
      gradeConditions: [],
      updateAt: `${formatDateTime(modified, 'T')}.${millis}${String(r.int(1000)).padStart(3, '0')}`,
      modifiedAt: `${formatDateTime(modified, 'T')}.${millis}Z`,
      labels: {},
      quick,
      signatureRequired: r.chance(0.2),
      withCatalog: r.chance(0.25),
    };
  }
}
