// The data of the queue's jobs, checked with zod when a job starts: jobs outlive deploys, so a
// payload written by an older (or newer, or hostile) producer is never trusted. Objects are strict:
// a field we do not know — a token slipped in by mistake above all — fails the job instead of
// riding along in Redis. A job whose data does not parse can never succeed, so the processor fails
// it at once (UnrecoverableError) with the reason on one line.

import { z } from 'zod';
import { EXPORT_FORMATS, type ExportFormat } from '../domain/export-format.js';
import { parseDay } from 'wfm-contract/civil-time';
import { InvalidRequestError } from '../errors.js';

const day = z.string().refine((text) => parseDay(text) !== undefined, 'expected a real date as YYYY-MM-DD');
const formats = z
  .array(z.enum(EXPORT_FORMATS))
  .min(1, 'expected at least one format')
  .transform((list): ExportFormat[] => EXPORT_FORMATS.filter((f) => list.includes(f)));
/** A destination as given (folder or s3://bucket/prefix); parsed and checked where it is used. */
const dest = z.string().min(1).max(1024);

/** An export definition's name (EXPORTS_FILE), as the loader allows it. */
const definitionName = z.string().regex(/^[a-z0-9-]{1,64}$/, 'expected an export definition name');

/** One period, in formats, to a destination: what every export job and a backfill's parent share. */
const periodJobDataSchema = z.strictObject({
  from: day,
  to: day,
  formats,
  dest: dest.optional(),
});

/**
 * One period to export. `dest` absent: the worker's EXPORT_DEST. `export` names the export
 * definition whose run queued it: the worker takes its filter, split and delivery from its own
 * loaded definitions when the job runs (absent, as in every job queued before definitions existed:
 * an export of everything, delivered as NOTIFY_* says).
 */
export const exportJobDataSchema = periodJobDataSchema.extend({
  export: definitionName.optional(),
  /** When the job was last queued again (export-run.ts); absent until it is re-run. */
  rerun: z.number().int().positive().optional(),
});

export type ExportJobData = z.infer<typeof exportJobDataSchema>;

/** A scheduled run of an export definition (its Job Scheduler `export:<name>`): the name alone. */
export const definitionRunJobDataSchema = z.strictObject({ export: definitionName });
export type DefinitionRunJobData = z.infer<typeof definitionRunJobDataSchema>;

/** The nightly run: everything else comes from the worker's configuration when it runs. */
export const nightlyJobDataSchema = z.strictObject({});

/** The parent of a backfill flow: the whole range, for the index it writes. */
export const backfillJobDataSchema = periodJobDataSchema;
export type BackfillJobData = z.infer<typeof backfillJobDataSchema>;

/** Parses job data with `schema`; throws InvalidRequestError (never retryable) naming the field. */
export function parseJobData<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
  throw new InvalidRequestError(
    `the ${what} job data is invalid${path}: ${issue?.message ?? 'unknown problem'}`,
  );
}

/** Job data as producers write it: formats in canonical order, no undefined members. */
export function exportJobData(
  from: string,
  to: string,
  formatList: readonly ExportFormat[],
  destText?: string,
  definition?: string,
): ExportJobData {
  const data: ExportJobData = { from, to, formats: EXPORT_FORMATS.filter((f) => formatList.includes(f)) };
  return {
    ...data,
    ...(destText === undefined ? {} : { dest: destText }),
    ...(definition === undefined ? {} : { export: definition }),
  };
}
