import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RejectedRow } from '../../src/domain/rejected-row.js';
import { FINISHED_SHIFT_FIELDS, finishedShiftSchema } from 'wfm-contract/finished-shift';
import { FREE_TEXT_FIELDS } from '../../src/pipeline/spreadsheet-safe-fields.js';
import { isRejected, validateShift } from '../../src/pipeline/validate.js';
import { recordOf } from './support/shift-records.js';
import { shiftRow, type RawRow } from './support/shift-rows.js';

interface Case {
  readonly case: string;
  readonly patch?: RawRow;
  readonly remove?: readonly string[];
}
interface RejectedCase extends Case {
  readonly id: number | null;
  readonly reason: string;
}
interface AcceptedCase extends Case {
  readonly flags: string;
  readonly nulled?: readonly string[];
  readonly status?: string;
}
const cases = JSON.parse(
  readFileSync(new URL('../fixtures/rows/validate-cases.json', import.meta.url), 'utf8'),
) as {
  readonly rejected: readonly RejectedCase[];
  readonly accepted: readonly AcceptedCase[];
};

function rowOf(c: Case): RawRow {
  const row = shiftRow(c.patch);
  for (const key of c.remove ?? []) delete row[key];
  return row;
}

function rejected(raw: unknown): RejectedRow {
  const result = validateShift(raw);
  if (!isRejected(result)) throw new Error('expected a rejection');
  return result;
}

const accepted = recordOf;

describe('validate', () => {
  describe.each(cases.rejected)('rejects $case', (c) => {
    it('with its id, the reason and the raw JSON', () => {
      const row = rowOf(c);
      const result = rejected(row);
      expect(result.reason).toBe(c.reason);
      expect(result.id).toBe(c.id);
      expect(result.rawJson).toBe(JSON.stringify(row));
    });
  });

  describe.each(cases.accepted)('exports $case', (c) => {
    it('with its quality flags', () => {
      const record = accepted(rowOf(c));
      expect(record.qualityFlags).toBe(c.flags);
      for (const field of c.nulled ?? [])
        expect(record.shift[field as keyof typeof record.shift], field).toBeNull();
      if (c.status !== undefined) expect(record.locationStatus).toBe(c.status);
    });
  });

  it.each([
    ['an array', [], 'row: Invalid input: expected object, received array'],
    ['a string', 'shift', 'row: Invalid input: expected object, received string'],
    ['a number', 42, 'row: Invalid input: expected object, received number'],
    ['null', null, 'row: Invalid input: expected object, received null'],
    ['a boolean', true, 'row: Invalid input: expected object, received boolean'],
  ])('rejects %s that is not a row at all', (_name, raw, reason) => {
    expect(rejected(raw)).toEqual({ id: null, reason, rawJson: JSON.stringify(raw) });
  });

  it('keeps the raw JSON exactly, unknown members and non-ASCII text included', () => {
    const row = shiftRow({
      user_login: 7,
      comment: 'Смена «закрыта» 👍\n"quoted"',
      nested: { list: [1, null, 'x'] },
    });
    const result = rejected(row);
    expect(JSON.parse(result.rawJson)).toEqual(row);
    expect(result.rawJson).toContain('Смена «закрыта» 👍\\n\\"quoted\\"');
  });

  it('keeps the id of a rejected row even when the row has other problems', () => {
    expect(rejected(shiftRow({ id: -42, duration: -1 })).id).toBe(-42);
  });

  it('exports a row with a mistyped nullable field with that field as null', () => {
    const record = accepted(shiftRow({ shop_locality: 12, comment: 'kept' }));
    expect(record.shift.shop_locality).toBeNull();
    expect(record.shift.comment).toBe('kept');
    expect(record.qualityFlags).toBe('invalid_shop_locality');
  });

  it('builds the record with the whole seconds and wall clocks of the row', () => {
    const record = accepted(shiftRow());
    expect(record.startUtc).toBe(Date.UTC(2024, 4, 1, 5) / 1000);
    expect(record.finishUtc).toBe(Date.UTC(2024, 4, 1, 13) / 1000);
    expect(record.startLocal).toBe(Date.UTC(2024, 4, 1, 8) / 1000);
    expect(record.divisionExternalId).toBeNull();
    expect(record.divisionManagers).toBeNull();
  });

  it('returns only the contract members, in the contract order', () => {
    const record = accepted(shiftRow({ extra: 1 }));
    const { extra: _extra, ...contract } = shiftRow({ extra: 1 });
    expect(JSON.stringify(record.shift)).toBe(JSON.stringify(contract));
  });

  describe('the character rule (spreadsheet-safe-text.ts)', () => {
    const HOSTILE = 'a\uFFFEb\u0000c\uD800d\u007Fe\uFFFF\u001B';
    const REPLACED = 'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFD\uFFFD';

    it('covers every text of the contract that is not an enum or a date-time', () => {
      const freeText = FINISHED_SHIFT_FIELDS.filter(
        (field) => finishedShiftSchema.shape[field].safeParse('any text').success,
      );
      expect([...FREE_TEXT_FIELDS].sort()).toEqual([...freeText].sort());
    });

    it.each(FREE_TEXT_FIELDS)('replaces what a spreadsheet cannot hold in %s and flags the row', (field) => {
      const record = accepted(shiftRow({ [field]: HOSTILE }));
      expect(record.shift[field]).toBe(REPLACED);
      expect(record.qualityFlags).toBe('text_replaced');
    });

    it('puts text_replaced after the other flags', () => {
      const record = accepted(shiftRow({ duration: 28_861, shop_locality: 12, comment: '\uFFFF' }));
      expect(record.qualityFlags).toBe('duration_mismatch;invalid_shop_locality;text_replaced');
    });

    it('keeps emoji, C1 controls, tabs and line breaks, and does not flag them', () => {
      const text = 'ok 👍\t\r\n\u0085\u009f \uFDD0 \uFFFD';
      const record = accepted(shiftRow({ comment: text, user_display_name: text }));
      expect([record.shift.comment, record.shift.user_display_name]).toEqual([text, text]);
      expect(record.qualityFlags).toBe('');
    });

    it("leaves a rejected row's raw JSON exactly as received", () => {
      const row = shiftRow({ duration: -1, comment: HOSTILE });
      expect(rejected(row).rawJson).toBe(JSON.stringify(row));
    });
  });
});
