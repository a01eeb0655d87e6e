// Owns the shape of EXPORTS_FILE: a top-level `exports:` list of definitions, every object strict
// (an unknown key is an error: a misspelt `shedule:` must not silently make a definition run on
// demand only). Each field's own rule is checked here (name, cron pattern, time zone, period rule,
// formats, language, ids, addresses, URLs); the rules that join fields, definitions or settings are in
// definition-rules.ts. Messages read after a `exports[i].field: ` prefix, so they start with a verb
// or the value, and never quote a webhook URL (its path may be a secret).

import { z } from 'zod';
import { EXPORT_FORMATS, type ExportFormat } from '../domain/export-format.js';
import { isPlainAddress } from '../domain/mail-address.js';
import { REPORT_LANGUAGES } from '../i18n/report-language.js';
import { hasControlCharacters } from '../one-line.js';
import { DIVISION_MANAGERS } from './export-definition.js';
import { cronProblem } from './next-runs.js';
import { parsePeriodRule, PERIOD_RULE_NAMES } from './period-rule.js';
import { isTimeZone } from './zoned-time.js';

/** For messages: a value as JSON, control characters escaped. */
export const shown = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** The keys an object may have, for the message about one it may not. */
function strict<S extends z.ZodRawShape>(shape: S) {
  const keys = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key (expected ${keys})` : undefined),
  });
}

const NAME = /^[a-z0-9-]{1,64}$/;
/** The most days a yesterday's run may look back, as LOOKBACK_DAYS. */
export const MAX_LOOKBACK_DAYS = 60;

const formatSchema = z.enum(EXPORT_FORMATS, {
  error: (issue) => `unknown format ${shown(issue.input)} (expected ${EXPORT_FORMATS.join(', ')})`,
});

/** Formats de-duplicated, in the project's order of formats. */
export const canonicalFormats = (formats: readonly ExportFormat[]): ExportFormat[] =>
  EXPORT_FORMATS.filter((f) => formats.includes(f));

/** A list of formats as written (a rule that points at one of them needs its index). */
const formatListSchema = z.array(formatSchema).min(1, 'must list at least one format');
const formatsSchema = formatListSchema.transform(canonicalFormats);

const idsSchema = z
  .array(z.number().int('must be a whole-number id').min(0, 'must be a whole-number id'))
  .min(1, 'must list at least one id')
  .transform((ids) => [...new Set(ids)].sort((a, b) => a - b));

/** The rule delivery applies before it sends (src/domain/mail-address.ts), so a check finds what mail would skip. */
const addressSchema = z.string().refine(isPlainAddress, {
  error: (issue) => `${shown(issue.input)} is not an e-mail address (expected a plain name@domain)`,
});

const addressesSchema = z.array(addressSchema);

function isWebhookUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text) || /\s/.test(text) || hasControlCharacters(text)) return false;
  try {
    return new URL(text).host !== '';
  } catch {
    return false;
  }
}

const webhookUrlSchema = z.string().refine(isWebhookUrl, 'must be an http:// or https:// URL without spaces');

const scheduleSchema = strict({
  cron: z.string().superRefine((cron, ctx) => {
    const why = cronProblem(cron);
    if (why !== undefined)
      ctx.addIssue({ code: 'custom', message: `${shown(cron)} is not a cron pattern: ${why}` });
  }),
  tz: z.string().refine(isTimeZone, {
    error: (issue) => `${shown(issue.input)} is not an IANA time zone such as Europe/Berlin`,
  }),
});

const emailSchema = strict({
  to: z.union([z.literal(DIVISION_MANAGERS), addressesSchema.min(1, 'must list at least one address')], {
    error: `must be ${DIVISION_MANAGERS} or a list of e-mail addresses`,
  }),
  cc: addressesSchema.default([]),
  /** Default DEFAULT_ATTACH, applied by definition-rules.ts, which tells a written list from the default. */
  attach: formatListSchema.optional(),
  when: z.enum(['always', 'changed'], { error: 'must be always or changed' }).default('always'),
});

const deliverSchema = strict({
  email: emailSchema.optional(),
  webhook: z
    .union(
      [
        webhookUrlSchema.transform((url) => [url]),
        z.array(webhookUrlSchema).min(1, 'must list at least one URL'),
      ],
      {
        error: 'must be an http:// or https:// URL, or a list of them',
      },
    )
    .optional(),
}).refine((d) => d.email !== undefined || d.webhook !== undefined, 'names neither email nor webhook');

const filterSchema = strict({
  divisions: idsSchema.optional(),
  regions: idsSchema.optional(),
  shops: idsSchema.optional(),
}).refine(
  (f) => f.divisions !== undefined || f.regions !== undefined || f.shops !== undefined,
  'names no divisions, regions or shops',
);

/** One entry of `exports:` as the file gives it, each field checked on its own. */
export const definitionEntrySchema = strict({
  name: z.string().regex(NAME, 'must be 1 to 64 characters of a-z, 0-9 and "-"'),
  schedule: scheduleSchema.optional(),
  period: z.string().transform((text, ctx) => {
    const rule = parsePeriodRule(text);
    if (rule === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${shown(text)} is not a period rule (expected ${PERIOD_RULE_NAMES})`,
      });
      return z.NEVER;
    }
    return rule;
  }),
  lookback_days: z
    .number()
    .int(`must be a whole number from 0 to ${MAX_LOOKBACK_DAYS}`)
    .min(0, `must be a whole number from 0 to ${MAX_LOOKBACK_DAYS}`)
    .max(MAX_LOOKBACK_DAYS, `must be a whole number from 0 to ${MAX_LOOKBACK_DAYS}`)
    .optional(),
  formats: formatsSchema.optional(),
  /** Default REPORT_LANG, applied by definition-rules.ts. */
  lang: z
    .enum(REPORT_LANGUAGES, {
      error: (issue) =>
        `${shown(issue.input)} is not a report language (expected ${REPORT_LANGUAGES.join(', ')})`,
    })
    .optional(),
  dest: z.string().min(1, 'must not be empty').optional(),
  filter: filterSchema.optional(),
  split: z.literal('division', { error: 'must be division (the one split there is)' }).optional(),
  deliver: deliverSchema.optional(),
});

export type DefinitionEntry = z.output<typeof definitionEntrySchema>;

/** The whole file: `exports:` holds the entries, each parsed on its own so that all are checked. */
export const definitionsFileSchema = strict({
  exports: z.array(z.unknown()),
});

/** What zod says when a schema above has no message of its own: plain words for a YAML writer. */
export const plainIssueMessages: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? 'is required'
        : `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${kindOf(issue.input)}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    default:
      return undefined;
  }
};

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value)',
};

function kindOf(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a text';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}
