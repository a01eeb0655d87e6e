// The validate stage: one raw JSON value in, either its ShiftRecord (built by the localise stage)
// or a RejectedRow that says why the row cannot be placed.
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
// reader that accepts exactly what finishedShiftSchema accepts (read-finished-shift.ts) does the
// type checks; a row it refuses goes to finishedShiftSchema.safeParse, whose issues explain the
// rejection or name the nullable fields to repair.

import { finishedShiftSchema, NULLABLE_SHIFT_FIELDS, type FinishedShift } from '../domain/finished-shift.js';
import { MAX_OFFSET_MINUTES, MIN_OFFSET_MINUTES } from '../domain/period.js';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import { dateTimeSeconds, patternedDateTimeSeconds } from './date-time-seconds.js';
import { localiseShift } from './localise.js';
import { qualityFlagsOf, type NullableShiftField } from './quality-flags.js';
import { readFinishedShift } from './read-finished-shift.js';
import { makeTextFieldsSpreadsheetSafe } from './spreadsheet-safe-fields.js';

/** The part of a zod issue we read: enough to name the field and say what is wrong. */
interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

type LooseRow = Readonly<Record<string, unknown>>;

const NULLABLE_FIELDS: ReadonlySet<string> = new Set(NULLABLE_SHIFT_FIELDS);

export function isRejected(result: ShiftRecord | RejectedRow): result is RejectedRow {
  return 'rawJson' in result;
}

/** Validates one raw row (a value from JSON.parse) and, when it can be placed, localises it. */
export function validateShift(raw: unknown): ShiftRecord | RejectedRow {
  const shift = readFinishedShift(raw);
  if (shift !== undefined) return placeShift(raw, shift, undefined);
  const parsed = finishedShiftSchema.safeParse(raw);
  // Reached only if the reader were stricter than the schema (its property test says it is not).
  if (parsed.success) return placeShift(raw, parsed.data, undefined);
  return validateDespiteIssues(raw, parsed.error.issues);
}

/** The semantic rules zod's types cannot express, then the record. */
function placeShift(
  raw: unknown,
  shift: FinishedShift,
  invalidFields: readonly NullableShiftField[] | undefined,
): ShiftRecord | RejectedRow {
  // Both texts matched the pattern (reader or schema): only the calendar remains to check.
  const startUtc = patternedDateTimeSeconds(shift.start_time);
  const finishUtc = patternedDateTimeSeconds(shift.finish_time);
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
    const start = checkedSeconds('start_time', shift.start_time, problems);
    const finish = checkedSeconds('finish_time', shift.finish_time, problems);
    checkOffset('start_time_offset', shift.start_time_offset, problems);
    checkOffset('finish_time_offset', shift.finish_time_offset, problems);
    checkOrder(shift.start_time, start, shift.finish_time, finish, problems);
    checkDuration(shift.duration, problems);
    return rejection(raw, problems);
  }
  const textReplaced = makeTextFieldsSpreadsheetSafe(shift);
  return localiseShift(
    shift,
    startUtc,
    finishUtc,
    qualityFlagsOf(shift, startUtc, finishUtc, invalidFields, textReplaced),
  );
}

/**
 * A row with schema issues: when they are all on nullable fields, those fields become null and the
 * row goes on; otherwise it is rejected with every problem we can name, including the semantic
 * rules on the fields whose type was right (so one reason lists everything to fix).
 */
function validateDespiteIssues(raw: unknown, issues: readonly Issue[]): ShiftRecord | RejectedRow {
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
      problems.push(describeIssue(row, issue));
    }
  }
  if (row === undefined) return rejection(raw, problems);
  if (problems.length === 0) {
    const repaired: Record<string, unknown> = { ...row };
    const invalid: NullableShiftField[] = [];
    for (const field of nullable) {
      if (row[field] !== undefined) invalid.push(field);
      repaired[field] = null;
    }
    const again = finishedShiftSchema.safeParse(repaired);
    if (again.success) return placeShift(raw, again.data, invalid.length > 0 ? invalid : undefined);
    for (const issue of again.error.issues) problems.push(describeIssue(repaired, issue));
    return rejection(raw, problems);
  }
  checkRulesOfWellTypedFields(row, failed, problems);
  return rejection(raw, problems);
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
  const seconds = dateTimeSeconds(text);
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

/** `field: message`, with "missing" for an absent key and `row` for the value itself. */
function describeIssue(row: LooseRow | undefined, issue: Issue): string {
  if (issue.path.length === 0) return `row: ${issue.message}`;
  const field = issue.path.map(String).join('.');
  if (row !== undefined && issue.path.length === 1 && row[field] === undefined) return `${field}: missing`;
  return `${field}: ${issue.message}`;
}

function rejection(raw: unknown, problems: readonly string[]): RejectedRow {
  const id = asObject(raw)?.['id'];
  return {
    id: typeof id === 'number' && Number.isSafeInteger(id) ? id : null,
    reason: problems.join('; '),
    // JSON.stringify gives undefined only for values JSON cannot hold (never from JSON.parse).
    rawJson: JSON.stringify(raw) ?? String(raw),
  };
}
