// The bytes of a wfm_timers response: a JSON array generated row by row into chunks of ~256 KiB
// (a few hundred rows), so a response of any size is produced in constant memory at the pace the
// client reads. Row faults (invalid, hostile-text and duplicated rows) are decided by a hash of the
// seed and the row's index: a retried or re-paged request sees the same bad rows.

import { hostileRow } from './hostile-text.js';
import { invalidRowBytes } from './invalid-rows.js';
import type { TimersPage } from './plan-timers-page.js';
import { hash3, unit } from './random.js';
import type { ShiftGenerator } from './shift-generator.js';
import { ShiftJsonEncoder } from './shift-json-encoder.js';
import { ShiftRow, toFinishedShift, type ShiftColumn } from './shift-row.js';

export interface TimersBodyOptions {
  readonly seed: number;
  readonly select: readonly ShiftColumn[] | undefined;
  readonly invalidRowRate: number;
  /** Names of the invalid-row variants to draw from (default: the contract breaks). */
  readonly invalidRowVariants?: readonly string[] | undefined;
  readonly duplicateRowRate: number;
  /** Default 0: without it, a body is byte for byte what it was before the fault existed. */
  readonly hostileTextRate?: number;
}

export const CHUNK_BYTES = 256 * 1024;

const SALT_INVALID = 11;
const SALT_VARIANT = 12;
const SALT_DUPLICATE = 13;
const SALT_HOSTILE = 14;
const OPEN = 91; // [
const COMMA = 44;
const CLOSE = 93; // ]

export function* timersBody(
  generator: ShiftGenerator,
  page: TimersPage,
  options: TimersBodyOptions,
): Generator<Buffer> {
  const { seed, select, invalidRowRate, invalidRowVariants, duplicateRowRate } = options;
  const hostileTextRate = options.hostileTextRate ?? 0;
  const encoder = new ShiftJsonEncoder(generator.fragments);
  const row = new ShiftRow();
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pos = 0;
  chunk[pos++] = OPEN;
  for (let p = 0; p < page.count; p++) {
    const index = page.indexAt(p);
    generator.fill(index, row);
    // The slow paths (select, invalid and hostile rows) go through JSON.stringify; the fast one
    // writes bytes.
    let slow: Buffer | undefined;
    if (invalidRowRate > 0 && unit(hash3(seed, SALT_INVALID, index)) < invalidRowRate) {
      slow = invalidRowBytes(toFinishedShift(row), hash3(seed, SALT_VARIANT, index), invalidRowVariants);
    } else if (hostileTextRate > 0 && unit(hash3(seed, SALT_HOSTILE, index)) < hostileTextRate) {
      const hostile = hostileRow(toFinishedShift(row), hash3(seed, SALT_VARIANT, index));
      const selected =
        select === undefined ? hostile : Object.fromEntries(select.map((c) => [c, hostile[c]]));
      slow = Buffer.from(JSON.stringify(selected));
    } else if (select !== undefined) {
      slow = Buffer.from(JSON.stringify(Object.fromEntries(select.map((c) => [c, row[c]]))));
    }
    const copies =
      duplicateRowRate > 0 && unit(hash3(seed, SALT_DUPLICATE, index)) < duplicateRowRate ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      const room = 1 + (slow === undefined ? encoder.rowBytesBound(row) : slow.length);
      if (pos + room + 1 > chunk.length) {
        yield chunk.subarray(0, pos);
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, room + 1));
        pos = 0;
      }
      if (p > 0 || copy > 0) chunk[pos++] = COMMA;
      if (slow === undefined) pos = encoder.write(row, chunk, pos);
      else pos += slow.copy(chunk, pos);
    }
  }
  chunk[pos++] = CLOSE;
  yield chunk.subarray(0, pos);
}
