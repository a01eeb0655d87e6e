// The WFM API contract (../shared/wfm-interface-spec.md) as zod schemas with the spec's exact field
// names, types and nullability. Response schemas are loose objects: they check the members the spec
// lists and keep the others (what fields=regions and fields=dirsWithBusinessDirs add to a division,
// whatever an upstream adds later) instead of failing or silently dropping them. Request bodies are
// strict and carry the spec's required rules.

import { z } from 'zod';
import { localDateTimeSchema } from '../domain/finished-shift.js';
import { TIMESTAMP_PATTERN } from '../domain/local-date-time.js';

export { finishedShiftSchema, type FinishedShift, localDateTimeSchema } from '../domain/finished-shift.js';

export const timestampSchema = z
  .string()
  .regex(TIMESTAMP_PATTERN, 'expected an ISO 8601 timestamp with a Z, e.g. 2024-05-01T08:30:00.000Z');

const integer = z.number().int();
const integerList = z.array(integer);

/** Spec 2.2: Template, embedded in Category.templates. */
export const templateSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  categoryId: z.string(),
  categoryName: z.string(),
  deleted: z.boolean(),
  hidden: z.boolean(),
  name: z.string(),
  authorId: integer,
  withGrades: z.boolean(),
  showGrades: z.boolean(),
  loadFromGalleryProhibited: z.boolean(),
  questionsCount: integer,
  gradeConditions: z.array(z.unknown()),
  updateAt: localDateTimeSchema,
  modifiedAt: timestampSchema,
  labels: z.record(z.string(), z.unknown()),
  quick: z.boolean(),
  signatureRequired: z.boolean(),
  withCatalog: z.boolean(),
});
export type Template = z.infer<typeof templateSchema>;

/** Spec 2.1: Category. */
export const categorySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  tenant: z.string(),
  active: z.boolean(),
  templateIds: z.array(z.string()),
  templates: z.array(templateSchema),
  unavailableIfBusinessDirIds: integerList.nullable(),
  unavailableIfGroupIds: integerList.nullable(),
  unavailableIfUserIds: integerList.nullable(),
});
export type Category = z.infer<typeof categorySchema>;

/** Spec 4.1: body of create and update category (same members, same required rules). */
export const categoryInputSchema = z.strictObject({
  name: z.string(),
  active: z.boolean(),
  unavailableIfBusinessDirIds: integerList.nullable().optional(),
  unavailableIfGroupIds: integerList.nullable().optional(),
  unavailableIfUserIds: integerList.nullable().optional(),
});
export type CategoryInput = z.infer<typeof categoryInputSchema>;

/** Spec 2.4: Division manager, element of Division.dirs. */
export const divisionManagerSchema = z.looseObject({
  id: integer,
  active: z.boolean(),
  login: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  position: z.string(),
  level: z.string(),
  businessDirId: integer,
  lang: z.string(),
  invited: z.boolean(),
  inviteAccepted: z.boolean(),
  inviteAcceptedAt: localDateTimeSchema,
});
export type DivisionManager = z.infer<typeof divisionManagerSchema>;

/** Spec 2.3: Division. `dirs` is present by default (fields=dirs) and absent otherwise. */
export const divisionSchema = z.looseObject({
  id: integer,
  externalId: z.string().nullable(),
  name: z.string(),
  active: z.boolean(),
  regionsCount: integer,
  shopsCount: integer,
  dirs: z.array(divisionManagerSchema).optional(),
});
export type Division = z.infer<typeof divisionSchema>;

/** Spec 4.2: body of create division. */
export const divisionCreateSchema = z.strictObject({
  externalId: z.string().nullable().optional(),
  name: z.string(),
  active: z.boolean().optional(),
});
export type DivisionCreate = z.infer<typeof divisionCreateSchema>;

/** Spec 4.2: body of update division (active is required here). */
export const divisionUpdateSchema = z.strictObject({
  externalId: z.string().nullable().optional(),
  name: z.string(),
  active: z.boolean(),
});
export type DivisionUpdate = z.infer<typeof divisionUpdateSchema>;

export const DIVISION_FIELDS = ['dirs', 'dirsWithBusinessDirs', 'regions'] as const;
export type DivisionField = (typeof DIVISION_FIELDS)[number];

/** Spec 4.1: query of list categories. */
export interface CategoryListQuery {
  readonly active?: boolean;
  readonly quick?: boolean;
  readonly notEmpty?: boolean;
}

/** Spec 4.2: query of list divisions. */
export interface DivisionListQuery {
  readonly ids?: readonly number[];
  readonly nameLike?: string;
  readonly userId?: number;
  readonly businessDirId?: number;
  readonly search?: string;
  readonly shopId?: number;
  readonly active?: boolean;
  /** Deprecated by the spec in favour of fields=dirs; still sent when asked. */
  readonly withDirs?: boolean;
  readonly fields?: readonly DivisionField[];
}

export const emptyObjectSchema = z.object({});
