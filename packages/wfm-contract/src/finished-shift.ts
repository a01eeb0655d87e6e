// The spec's "Finished shift" (section 2.5): one row of the report (4.3), with the spec's exact
// snake_case names, types and nullability. The contract only; the validate stage adds the
// semantic rules (offset range, finish after start...).

import { z } from 'zod';
import { localDateTimeSchema } from './date-time-text.js';

export const REPORT_PATH = '/v1/connector/rpc/wfm_timers';

export const ORG_LEVELS = ['COMPANY', 'DIVISION', 'REGION', 'SHOP'] as const;
export type OrgLevel = (typeof ORG_LEVELS)[number];

const integer = z.number().int();

export const finishedShiftSchema = z.object({
  id: integer,
  user_id: integer,
  user_login: z.string(),
  user_org_level: z.enum(ORG_LEVELS),
  user_position: z.string().nullable(),
  user_display_name: z.string(),
  division_id: integer,
  division_name: z.string(),
  region_id: integer,
  region_name: z.string(),
  shop_id: integer,
  shop_sap: z.string(),
  shop_locality: z.string().nullable(),
  shop_address: z.string().nullable(),
  start_time: localDateTimeSchema,
  start_time_offset: integer,
  finish_time: localDateTimeSchema,
  finish_time_offset: integer,
  duration: integer,
  comment: z.string().nullable(),
  start_location_lat: z.number().nullable(),
  start_location_lon: z.number().nullable(),
  start_location_distance: integer.nullable(),
  start_location_match: z.boolean().nullable(),
  finish_location_lat: z.number().nullable(),
  finish_location_lon: z.number().nullable(),
  finish_location_distance: integer.nullable(),
  finish_location_match: z.boolean().nullable(),
  auto_finished: z.boolean(),
});

export type FinishedShift = z.infer<typeof finishedShiftSchema>;
export type FinishedShiftField = keyof FinishedShift;

/** Every member of a finished shift, in the spec's order (the schema declares them in it). */
export const FINISHED_SHIFT_FIELDS = Object.freeze(
  Object.keys(finishedShiftSchema.shape) as FinishedShiftField[],
);

/** The fields the spec marks nullable: a wrong type there does not make a row unplaceable. */
export const NULLABLE_SHIFT_FIELDS = [
  'user_position',
  'shop_locality',
  'shop_address',
  'comment',
  'start_location_lat',
  'start_location_lon',
  'start_location_distance',
  'start_location_match',
  'finish_location_lat',
  'finish_location_lon',
  'finish_location_distance',
  'finish_location_match',
] as const satisfies readonly (keyof FinishedShift)[];

/**
 * The fields the spec types as integers: JSON.parse must not have rounded them (see the validate
 * stage), since an id that is not the upstream's is worse than none.
 */
export const INTEGER_SHIFT_FIELDS = [
  'id',
  'user_id',
  'division_id',
  'region_id',
  'shop_id',
  'start_time_offset',
  'finish_time_offset',
  'duration',
  'start_location_distance',
  'finish_location_distance',
] as const satisfies readonly (keyof FinishedShift)[];
