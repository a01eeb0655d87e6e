// The pipeline on rows as the report reader hands them over: parsed by the scanner, with their
// texts as received. What JSON.parse hides (rounded integers, bytes that are not UTF-8) must not
// reach the export, and a rejected row is kept exactly as it was sent.

import { describe, expect, it } from 'vitest';
import { INTEGER_SHIFT_FIELDS, NULLABLE_SHIFT_FIELDS } from 'wfm-contract/finished-shift';
import type { RawRows } from '../../src/domain/raw-rows.js';
import { ShiftPipeline, type BatchResult } from '../../src/pipeline/shift-pipeline.js';
import { JsonArrayScanner } from '../../src/wfm/json-array-scanner.js';
import { shiftRow, type RawRow } from './support/shift-rows.js';

const MAY = { from: '2024-05-01', to: '2024-05-01' };
const TWO_TO_53 = 2n ** 53n;

/** The rows as the scanner parses them, in one batch (it is smaller than batchBytes). */
function scanned(rows: readonly (string | Buffer)[]): RawRows {
  const parts: Buffer[] = [Buffer.from('[')];
  rows.forEach((row, i) => parts.push(Buffer.from(i === 0 ? '' : ','), Buffer.from(row)));
  parts.push(Buffer.from(']'));
  const scanner = new JsonArrayScanner({ maxBodyBytes: 1 << 30, maxRowBytes: 1 << 24, batchBytes: 1 << 24 });
  expect(scanner.push(Buffer.concat(parts))).toHaveLength(0);
  const batch = scanner.end();
  expect(batch).toHaveLength(rows.length);
  return batch;
}

function run(rows: readonly (string | Buffer)[]): BatchResult {
  return new ShiftPipeline({ period: MAY, divisions: new Map() }).processBatch(scanned(rows));
}

/** The base row as JSON text with `member`'s value written as `number` (the text, not a JS number). */
function withNumber(member: string, number: string, patch: RawRow = {}): string {
  const row = shiftRow({ [member]: 0, ...patch });
  return JSON.stringify(row).replace(`"${member}":0`, `"${member}":${number}`);
}

describe('rows read with their texts', () => {
  it('keeps a rejected row exactly as it was sent: spacing, escapes, number spelling, member order', () => {
    const sent =
      '{ "duration" : -1.50e1,\n  "id":7, "comment":"caf\\u00e9 \\/ \\ud83d\\ude00", "extra": [1.0, {"a":null}] }';
    const { rejected } = run([sent]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.rawJson).toBe(sent);
    expect(rejected[0]?.id).toBe(7);
  });

  it('rejects two ids past 2^53 as two rows, each with its own digits and text', () => {
    const a = withNumber('id', '9007199254740993');
    const b = withNumber('id', '9007199254740992');
    const { shifts, rejected } = run([a, b]);
    expect(shifts).toEqual([]);
    expect(rejected).toEqual([
      { id: null, reason: 'id: 9007199254740993 is past 2^53 and cannot be kept exactly', rawJson: a },
      { id: null, reason: 'id: 9007199254740992 is past 2^53 and cannot be kept exactly', rawJson: b },
    ]);
  });

  const required = INTEGER_SHIFT_FIELDS.filter(
    (f) => !(NULLABLE_SHIFT_FIELDS as readonly string[]).includes(f),
  );
  it.each(required)('never exports %s rounded: past ±2^53 it rejects the row, naming the digits', (field) => {
    for (const [digits, bound] of [
      [String(TWO_TO_53 + 1n), '2^53'],
      [String(-TWO_TO_53 - 1n), '-2^53'],
      ['123456789012345678901234567890', '2^53'],
    ] as const) {
      const text = withNumber(field, digits);
      const { shifts, rejected } = run([text]);
      expect(shifts).toEqual([]);
      expect(rejected[0]?.reason).toContain(
        `${field}: ${digits} is past ${bound} and cannot be kept exactly`,
      );
      expect(rejected[0]?.rawJson).toBe(text);
    }
  });

  it.each(['start_location_distance', 'finish_location_distance'])(
    'exports %s past 2^53 as null, flagged, like any wrong value of a nullable field',
    (field) => {
      const { shifts, rejected } = run([withNumber(field, String(TWO_TO_53 + 1n))]);
      expect(rejected).toEqual([]);
      expect(shifts[0]?.shift[field as 'start_location_distance']).toBeNull();
      expect(shifts[0]?.qualityFlags).toBe(`invalid_${field}`);
    },
  );

  it('never gives a rounded id as the id of a rejected row, and names every rounded number', () => {
    const text = withNumber('id', '9007199254740990.9', { user_id: 0, start_time: undefined }).replace(
      '"user_id":0',
      '"user_id":1.000000000000000001',
    );
    const { rejected } = run([text]);
    expect(rejected).toEqual([
      {
        id: null,
        reason:
          'start_time: missing; id: 9007199254740990.9 would be read as 9007199254740991 and cannot be kept ' +
          'exactly; user_id: 1.000000000000000001 would be read as 1 and cannot be kept exactly',
        rawJson: text,
      },
    ]);
  });

  it('keeps whole numbers written with a fraction or an exponent: they are exact', () => {
    // The second row is read by its text (a mistyped comment), where its numbers are checked.
    const { shifts } = run([
      withNumber('duration', '2.88e4', { id: 1 }),
      withNumber('id', '2.000', { comment: 12, duration: 0 }).replace('"duration":0', '"duration":288E2'),
    ]);
    expect(shifts.map((s) => [s.shift.id, s.shift.duration, s.qualityFlags])).toEqual([
      [1, 28_800, ''],
      [2, 28_800, 'invalid_comment'],
    ]);
  });

  it('flags a row whose bytes are not UTF-8, shows them as U+FFFD, and leaves its neighbours alone', () => {
    const [head = '', tail = ''] = JSON.stringify(shiftRow({ id: 1, comment: 'x' })).split('"x"');
    const bad = Buffer.concat([
      Buffer.from(`${head}"a`),
      Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from(`b"${tail}`),
    ]);
    const good = JSON.stringify(shiftRow({ id: 2, comment: 'ok 😀' }));
    const { shifts } = run([bad, good]);
    expect(shifts.map((s) => [s.shift.id, s.shift.comment, s.qualityFlags])).toEqual([
      [1, 'a\uFFFD\uFFFD(b', 'invalid_utf8'],
      [2, 'ok 😀', ''],
    ]);
  });

  it('keeps a rejected row that is not UTF-8 as its bytes decoded, and says so in the reason', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"id":5,"duration":-1,"comment":"'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('"}'),
    ]);
    const { rejected } = run([bytes]);
    expect(rejected[0]?.rawJson).toBe('{"id":5,"duration":-1,"comment":"\uFFFD"}');
    expect(rejected[0]?.reason).toMatch(
      /; row: its bytes are not valid UTF-8 \(raw_json shows U\+FFFD for them\)$/,
    );
  });

  it('lets the texts of a batch go once it is validated', () => {
    const batch = scanned([withNumber('id', '1')]);
    new ShiftPipeline({ period: MAY, divisions: new Map() }).processBatch(batch);
    expect(() => batch.texts?.textOf(0)).toThrow(/released/);
  });
});
