// The validate stage: one raw JSON value in, either its ValidShift (the contract's fields, both
// instants in whole UTC seconds, the quality flags) or a RejectedRow that says why the row cannot
// be placed.
//
// A row is rejected only when it cannot be placed: not an object; a non-nullable field missing or
// of the wrong type; a date-time that matches the pattern but is not a real one (2023-02-30,
// 24:00:00); an offset outside -720..+840 minutes; finish before start (compared on whole seconds,
// the precision of the export); a negative duration; a user_org_level outside the four values.
//
// A placed row's free texts get the character rule of spreadsheet-safe-text.ts (unholdable
// characters become U+FFFD, the row is flagged text_replaced); a rejected row's raw_json is
// evidence and stays exactly as received.
//
// Nullable fields are lenient: a key that is missing counts as null (serialisers that omit nulls
// are common, so this is not flagged); a value of the wrong type is exported as null and named in
// quality_flags as `invalid_<field>`, so the row still counts and nothing we cannot read is shown.
//
// Each row is checked on its own (never z.array over the report). On the hot path a hand-written
// type check that accepts exactly what finishedShiftSchema accepts (field-types.ts) does the work;
// a row it refuses goes to finishedShiftSchema.safeParse, whose issues explain the rejection or
// name the nullable fields to repair.
//
// A row that is not clean (the type check refuses it, or a semantic rule does) or whose bytes are
// not UTF-8 is read again from its text as received (raw-rows.ts), which is also the raw JSON of a
// rejected row: there an integer JSON.parse rounded (exact-integers.ts) is refused like any wrong
// value of its field, and bytes that are not UTF-8 flag the row `invalid_utf8` (docs/analysts.md:
// "Rejected rows and rows as received"). A rounded id is never given as the rejected row's id.

import { finishedShiftSchema, NULLABLE_SHIFT_FIELDS, type FinishedShift } from 'wfm-contract/finished-shift';
import { parseLocalDateTimeSeconds, parsePatternedLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { MAX_OFFSET_MINUTES, MIN_OFFSET_MINUTES } from '../domain/period.js';
import type { RowTexts } from '../domain/raw-rows.js';
import type { RejectedRow } from '../domain/rejected-row.js';
import { validShift, type ValidShift } from '../domain/shift-record.js';
import { numberTextOf, roundedIntegerFields } from './exact-integers.js';
import { qualityFlagsOf, type NullableShiftField } from './quality-flags.js';
import { checkFieldTypes } from './field-types.js';
import { makeTextFieldsSpreadsheetSafe } from './spreadsheet-safe-fields.js';

/** The part of a zod issue we read: enough to name the field and say what is wrong. */
interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly origin?: string;
}

/** Where a row came from, for the rare paths that need more than its value. */
interface RowSource {
  /** The texts of its batch, when the reader kept them. */
  readonly texts: RowTexts | undefined;
  readonly index: number;
  /** Its bytes were not valid UTF-8. */
  readonly notUtf8: boolean;
  /** Its id is not the one written (JSON.parse rounded it). */
  readonly idRounded: boolean;
}

/** A row without its text (not read from the upstream): rejected, it is kept re-serialised. */
const NO_TEXT: RowSource = { texts: undefined, index: 0, notUtf8: false, idRounded: false };

type LooseRow = Readonly<Record<string, unknown>>;

const NULLABLE_FIELDS: ReadonlySet<string> = new Set(NULLABLE_SHIFT_FIELDS);
const NO_FIELDS: ReadonlySet<string> = new Set();

export function isRejected(result: ValidShift | RejectedRow): result is RejectedRow {
  return 'rawJson' in result;
}

/**
 * Validates one raw row (a value from JSON.parse). `texts` and `index` lead to the row's text,
 * read only when the row is not clean or its bytes are not UTF-8.
 */
export function validateShift(raw: unknown, texts?: RowTexts, index = 0): ValidShift | RejectedRow {
  if (texts !== undefined && !texts.allUtf8 && !texts.isUtf8(index)) return validateByText(raw, texts, index);
  const shift = checkFieldTypes(raw);
  if (shift !== undefined) {
    const placed = placeShift(shift, undefined, false);
    if (!Array.isArray(placed)) return placed;
  }
  return texts === undefined ? validateWithSchema(raw, [], NO_TEXT) : validateByText(raw, texts, index);
}

/**
 * validateShift through the row's text: for a row that is not clean (rejected or repaired) or
 * whose bytes are not UTF-8, so that what JSON.parse hid — a rounded integer, bytes that are not
 * UTF-8 — is named, and the rejected row is kept as received.
 */
function validateByText(raw: unknown, texts: RowTexts, index: number): ValidShift | RejectedRow {
  const rounded = roundedIntegerFields(texts.textOf(index), raw);
  const source: RowSource = {
    texts,
    index,
    notUtf8: !texts.isUtf8(index),
    idRounded: rounded.some((r) => r.field === 'id'),
  };
  const issues: Issue[] = rounded.map(({ field, literal }) => ({
    path: [field],
    message: `${literal} would be read as ${String((raw as LooseRow)[field])} and cannot be kept exactly`,
  }));
  return validateWithSchema(raw, issues, source);
}

/** The slow path: the schema's issues (plus `extra` ones) explain the rejection or name the fields to repair. */
function validateWithSchema(
  raw: unknown,
  extra: readonly Issue[],
  source: RowSource,
): ValidShift | RejectedRow {
  const parsed = finishedShiftSchema.safeParse(raw);
  if (parsed.success && extra.length === 0) {
    const placed = placeShift(parsed.data, undefined, source.notUtf8);
    return Array.isArray(placed) ? rejection(raw, placed, source) : placed;
  }
  const extraFields = new Set(extra.map((issue) => String(issue.path[0])));
  const issues = parsed.success
    ? extra
    : [...parsed.error.issues.filter((issue) => !extraFields.has(String(issue.path[0]))), ...extra];
  return validateDespiteIssues(raw, issues, source);
}

/** The semantic rules zod's types cannot express, then the record; or every problem found. */
function placeShift(
  shift: FinishedShift,
  invalidFields: readonly NullableShiftField[] | undefined,
  notUtf8: boolean,
): ValidShift | string[] {
  // Both texts matched the pattern (type check or schema): only the calendar remains to check.
  const startUtc = parsePatternedLocalDateTimeSeconds(shift.start_time);
  const finishUtc = parsePatternedLocalDateTimeSeconds(shift.finish_time);
  if (
    startUtc === undefined ||
    finishUtc === undefined ||
    !offsetInRange(shift.start_time_offset) ||
    !offsetInRange(shift.finish_time_offset) ||
    finishUtc < startUtc ||
    shift.duration < 0
  ) {
    // Rare: collect every problem for the reason.
    const problems: string[] = [];
    checkRulesOfWellTypedFields(shift, NO_FIELDS, problems);
    return problems;
  }
  const textReplaced = makeTextFieldsSpreadsheetSafe(shift);
  return validShift(
    shift,
    startUtc,
    finishUtc,
    qualityFlagsOf(shift, startUtc, finishUtc, invalidFields, notUtf8, textReplaced),
  );
}

/**
 * A row with schema issues: when they are all on nullable fields, those fields become null and the
 * row goes on; otherwise it is rejected with every problem we can name, including the semantic
 * rules on the fields whose type was right (so one reason lists everything to fix).
 */
function validateDespiteIssues(
  raw: unknown,
  issues: readonly Issue[],
  source: RowSource,
): ValidShift | RejectedRow {
  const row = asObject(raw);
  const problems: string[] = [];
  const failed = new Set<string>();
  const nullable: NullableShiftField[] = [];
  for (const issue of issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : undefined;
    if (field !== undefined) failed.add(field);
    if (row !== undefined && field !== undefined && NULLABLE_FIELDS.has(field)) {
      if (!nullable.includes(field as NullableShiftField)) nullable.push(field as NullableShiftField);
    } else {
      problems.push(describeIssue(row, issue, source));
    }
  }
  if (row === undefined) return rejection(raw, problems, source);
  if (problems.length === 0) {
    const repaired: Record<string, unknown> = { ...row };
    const invalid: NullableShiftField[] = [];
    for (const field of nullable) {
      if (row[field] !== undefined) invalid.push(field);
      repaired[field] = null;
    }
    const again = finishedShiftSchema.safeParse(repaired);
    if (again.success) {
      const placed = placeShift(again.data, invalid.length > 0 ? invalid : undefined, source.notUtf8);
      return Array.isArray(placed) ? rejection(raw, placed, source) : placed;
    }
    for (const issue of again.error.issues) problems.push(describeIssue(repaired, issue, source));
    return rejection(raw, problems, source);
  }
  checkRulesOfWellTypedFields(row, failed, problems);
  return rejection(raw, problems, source);
}

function checkRulesOfWellTypedFields(row: LooseRow, failed: ReadonlySet<string>, problems: string[]): void {
  const text = (field: string): string | undefined => {
    const value = row[field];
    return typeof value === 'string' && !failed.has(field) ? value : undefined;
  };
  const integer = (field: string): number | undefined => {
    const value = row[field];
    return typeof value === 'number' && !failed.has(field) ? value : undefined;
  };
  const startText = text('start_time');
  const finishText = text('finish_time');
  const startUtc = startText === undefined ? undefined : checkedSeconds('start_time', startText, problems);
  const finishUtc =
    finishText === undefined ? undefined : checkedSeconds('finish_time', finishText, problems);
  const startOffset = integer('start_time_offset');
  if (startOffset !== undefined) checkOffset('start_time_offset', startOffset, problems);
  const finishOffset = integer('finish_time_offset');
  if (finishOffset !== undefined) checkOffset('finish_time_offset', finishOffset, problems);
  if (startText !== undefined && finishText !== undefined) {
    checkOrder(startText, startUtc, finishText, finishUtc, problems);
  }
  const duration = integer('duration');
  if (duration !== undefined) checkDuration(duration, problems);
}

function offsetInRange(minutes: number): boolean {
  return minutes >= MIN_OFFSET_MINUTES && minutes <= MAX_OFFSET_MINUTES;
}

function checkedSeconds(field: string, text: string, problems: string[]): number | undefined {
  const seconds = parseLocalDateTimeSeconds(text);
  if (seconds === undefined) problems.push(`${field}: "${text}" is not a real date-time`);
  return seconds;
}

function checkOffset(field: string, minutes: number, problems: string[]): void {
  if (!offsetInRange(minutes)) {
    problems.push(`${field}: ${minutes} is outside ${MIN_OFFSET_MINUTES}..+${MAX_OFFSET_MINUTES} minutes`);
  }
}

function checkOrder(
  startText: string,
  startUtc: number | undefined,
  finishText: string,
  finishUtc: number | undefined,
  problems: string[],
): void {
  if (startUtc !== undefined && finishUtc !== undefined && finishUtc < startUtc) {
    problems.push(`finish_time: ${finishText} is before start_time ${startText}`);
  }
}

function checkDuration(seconds: number, problems: string[]): void {
  if (seconds < 0) problems.push(`duration: ${seconds} is negative`);
}

function asObject(raw: unknown): LooseRow | undefined {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as LooseRow) : undefined;
}

/**
 * `field: message`, with "missing" for an absent key, `row` for the value itself, and the number
 * as written for an integer past ±(2^53−1).
 */
function describeIssue(row: LooseRow | undefined, issue: Issue, source: RowSource): string {
  if (issue.path.length === 0) return `row: ${issue.message}`;
  const field = issue.path.map(String).join('.');
  if (row !== undefined && issue.path.length === 1 && row[field] === undefined) return `${field}: missing`;
  if (issue.origin === 'int' && (issue.code === 'too_big' || issue.code === 'too_small')) {
    const text = source.texts?.textOf(source.index);
    const written = (text === undefined ? undefined : numberTextOf(text, field)) ?? String(row?.[field]);
    const bound = issue.code === 'too_big' ? '2^53' : '-2^53';
    return `${field}: ${written} is past ${bound} and cannot be kept exactly`;
  }
  return `${field}: ${issue.message}`;
}

function rejection(raw: unknown, problems: readonly string[], source: RowSource): RejectedRow {
  const id = asObject(raw)?.['id'];
  const reasons = source.notUtf8
    ? [...problems, 'row: its bytes are not valid UTF-8 (raw_json shows U+FFFD for them)']
    : problems;
  return {
    id: typeof id === 'number' && Number.isSafeInteger(id) && !source.idRounded ? id : null,
    reason: reasons.join('; '),
    // The text as received; without one (a row not read from the upstream) the value re-serialised.
    // JSON.stringify gives undefined only for values JSON cannot hold (never from JSON.parse).
    rawJson: source.texts?.textOf(source.index) ?? JSON.stringify(raw) ?? String(raw),
  };
}
