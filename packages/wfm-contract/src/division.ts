// Spec 2.3, 2.4 and 4.2: divisions of the organisation structure and their managers. Responses are
// loose objects: they check the members the spec lists and keep the others (what fields=regions
// and fields=dirsWithBusinessDirs add, whatever an upstream adds later). Request bodies are strict
// and carry the spec's required rules.

import { z } from 'zod';
import { localDateTimeSchema } from './date-time-text.js';

export const DIVISIONS_PATH = '/v1/orgstruct/divisions';

const integer = z.number().int();

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
  // Read leniently: a manager's language only chooses the language of their mail and workbook, so a
  // missing or null one falls back to the definition's instead of failing the whole division list.
  lang: z.string().nullish(),
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

/** Spec 4.2: the values of `fields` (list and get division), and its default. */
export const DIVISION_FIELDS = ['dirs', 'dirsWithBusinessDirs', 'regions'] as const;
export type DivisionField = (typeof DIVISION_FIELDS)[number];
export const DEFAULT_DIVISION_FIELDS: readonly DivisionField[] = ['dirs'];

/**
 * Spec 4.2: query of list divisions. An undefined member is not sent, so that the client's callers
 * and the sandbox's parsed query pass theirs as they are.
 */
export interface DivisionListQuery {
  readonly ids?: readonly number[] | undefined;
  readonly nameLike?: string | undefined;
  readonly userId?: number | undefined;
  readonly businessDirId?: number | undefined;
  readonly search?: string | undefined;
  readonly shopId?: number | undefined;
  readonly active?: boolean | undefined;
  /** Deprecated by the spec in favour of fields=dirs; still sent when asked. */
  readonly withDirs?: boolean | undefined;
  readonly fields?: readonly DivisionField[] | undefined;
}
