// Spec 2.1, 2.2 and 4.1: survey categories and their embedded templates. Responses are loose
// objects: they check the members the spec lists and keep the others (whatever an upstream adds
// later) instead of failing or silently dropping them. The request body is strict and carries the
// spec's required rules.

import { z } from 'zod';
import { localDateTimeSchema, timestampSchema } from './date-time-text.js';

export const CATEGORIES_PATH = '/v1/survey/categories';

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

/** Spec 4.1: the answer of delete category, an empty JSON object. */
export const emptyObjectSchema = z.object({});

/** Spec 4.1: query of list categories; an undefined member is not sent (as in DivisionListQuery). */
export interface CategoryListQuery {
  readonly active?: boolean | undefined;
  readonly quick?: boolean | undefined;
  readonly notEmpty?: boolean | undefined;
}
