// Writes a report row as JSON bytes straight into a Buffer: the hot path of every report
// response. Building ~950-byte strings by concatenation, flattening them and encoding them cost
// several microseconds a row; copying precomputed UTF-8 fragments (user, shop, comment, date) and
// writing digits directly costs well under one. The output is what JSON.stringify of the row in
// the spec's member order gives (tested).

import { formatDay } from 'wfm-contract/civil-time';
import type { ShiftRow } from './shift-row.js';

/**
 * The precomputed UTF-8 fragments a row refers to by index, each with the separators and keys
 * around it, so that it is one copy.
 */
export interface ShiftFragments {
  /** `,"user_login":…,"user_display_name":…` per user: what follows the user_id, written per row. */
  readonly users: readonly Uint8Array[];
  /** `,"division_id":…,"shop_address":…,"start_time":"` per shop. */
  readonly shops: readonly Uint8Array[];
  /** `,"comment":…,"start_location_lat":` per comment of the pool. */
  readonly comments: readonly Uint8Array[];
}

const ascii = (text: string): Uint8Array => Buffer.from(text, 'latin1');

export const FRAGMENT_SEPARATORS = {
  user: { before: ',', after: '' },
  shop: { before: ',', after: ',"start_time":"' },
  comment: { before: ',', after: ',"start_location_lat":' },
} as const;

// The constant text between two values is one piece, and so is a constant value with the key
// after it (null, true, false).
const OPEN_ID = ascii('{"id":');
const USER_ID_KEY = ascii(',"user_id":');
// Offsets are few (multiples of 15 minutes from -12:00 to +14:00): each has its text with the
// keys around it ready, one copy instead of three.
const MIN_OFFSET = -720;
const MAX_OFFSET = 840;
const offsetTexts = (before: string, after: string): Uint8Array[] =>
  Array.from({ length: (MAX_OFFSET - MIN_OFFSET) / 15 + 1 }, (_, k) =>
    ascii(`${before}${MIN_OFFSET + k * 15}${after}`),
  );
const START_OFFSET_KEY = '","start_time_offset":';
const FINISH_TIME_KEY = ',"finish_time":"';
const FINISH_OFFSET_KEY = '","finish_time_offset":';
const DURATION_KEY = ',"duration":';
const START_OFFSETS = offsetTexts(START_OFFSET_KEY, FINISH_TIME_KEY);
const FINISH_OFFSETS = offsetTexts(FINISH_OFFSET_KEY, DURATION_KEY);
const NULL_COMMENT = ascii(`,"comment":null${FRAGMENT_SEPARATORS.comment.after}`);
const NULL_TEXT = ascii('null');

interface LocationKeys {
  readonly lon: Uint8Array;
  readonly distance: Uint8Array;
  /** `,"…_match":` + value + the key after the block. */
  readonly matchNull: Uint8Array;
  readonly matchTrue: Uint8Array;
  readonly matchFalse: Uint8Array;
  /** The whole block of an unknown location, from the lat value to the key after it. */
  readonly unknown: Uint8Array;
}

function locationKeys(end: 'start' | 'finish', next: string): LocationKeys {
  const key = (name: string): string => `,"${end}_location_${name}":`;
  return {
    lon: ascii(key('lon')),
    distance: ascii(key('distance')),
    matchNull: ascii(`${key('match')}null${next}`),
    matchTrue: ascii(`${key('match')}true${next}`),
    matchFalse: ascii(`${key('match')}false${next}`),
    unknown: ascii(`null${key('lon')}null${key('distance')}null${key('match')}null${next}`),
  };
}

const START_KEYS = locationKeys('start', ',"finish_location_lat":');
const FINISH_KEYS = locationKeys('finish', ',"auto_finished":');
const AUTO_TRUE = ascii('true}');
const AUTO_FALSE = ascii('false}');
const ZERO = 48;

/** Bytes of everything in a row that is not a fragment, with room to spare. */
const FIXED_ROW_BYTES = 1024;

export class ShiftJsonEncoder {
  private readonly fragments: ShiftFragments;
  private readonly hours = new Map<number, Uint8Array>();
  private lastHour = NaN;
  private lastHourText: Uint8Array | undefined;
  constructor(fragments: ShiftFragments) {
    this.fragments = fragments;
  }

  /** An upper bound of the bytes write() takes for this row. */
  rowBytesBound(row: ShiftRow): number {
    const f = this.fragments;
    return (
      FIXED_ROW_BYTES +
      (f.users[row.userIndex]?.length ?? 0) +
      (f.shops[row.shopIndex]?.length ?? 0) +
      (row.commentIndex < 0 ? 0 : (f.comments[row.commentIndex]?.length ?? 0))
    );
  }

  /** Writes row JSON at `pos`; returns the position after it. */
  write(row: ShiftRow, out: Uint8Array, pos: number): number {
    const f = this.fragments;
    let p = copy(out, pos, OPEN_ID);
    p = writeInteger(out, p, row.id);
    // The id is written from the row, not the fragment: a sandbox may give every row its own user.
    p = copy(out, p, USER_ID_KEY);
    p = writeInteger(out, p, row.user_id);
    p = copy(out, p, f.users[row.userIndex] ?? NULL_TEXT);
    p = copy(out, p, f.shops[row.shopIndex] ?? NULL_TEXT);
    p = this.dateTime(out, p, row.startSecond, row.startFractionDigits, row.startFraction);
    p = writeOffset(out, p, START_OFFSETS, START_OFFSET_KEY, row.start_time_offset, FINISH_TIME_KEY);
    p = this.dateTime(out, p, row.finishSecond, row.finishFractionDigits, row.finishFraction);
    p = writeOffset(out, p, FINISH_OFFSETS, FINISH_OFFSET_KEY, row.finish_time_offset, DURATION_KEY);
    p = writeInteger(out, p, row.duration);
    p = copy(out, p, row.commentIndex < 0 ? NULL_COMMENT : (f.comments[row.commentIndex] ?? NULL_COMMENT));
    p = writeLocation(
      out,
      p,
      START_KEYS,
      row.start_location_lat === null ? undefined : row.startLatE6,
      row.start_location_lon === null ? undefined : row.startLonE6,
      row.start_location_distance,
      row.start_location_match,
    );
    p = writeLocation(
      out,
      p,
      FINISH_KEYS,
      row.finish_location_lat === null ? undefined : row.finishLatE6,
      row.finish_location_lon === null ? undefined : row.finishLonE6,
      row.finish_location_distance,
      row.finish_location_match,
    );
    return copy(out, p, row.auto_finished ? AUTO_TRUE : AUTO_FALSE);
  }

  /** `YYYY-MM-DDTHH:MM:SS[.fraction]` of whole epoch seconds. */
  private dateTime(out: Uint8Array, pos: number, seconds: number, digits: number, fraction: number): number {
    // `YYYY-MM-DDTHH:` per hour: rows come in start order, so the last hour is nearly always it.
    const hour = Math.floor(seconds / 3600);
    let head = hour === this.lastHour ? this.lastHourText : this.hours.get(hour);
    if (head === undefined) {
      const day = Math.floor(hour / 24);
      const hh = hour - day * 24;
      head = ascii(`${formatDay(day)}T${hh < 10 ? '0' : ''}${hh}:`);
      this.hours.set(hour, head);
    }
    this.lastHour = hour;
    this.lastHourText = head;
    let p = copy(out, pos, head);
    const rest = seconds - hour * 3600;
    const minutes = (rest / 60) | 0;
    p = twoDigits(out, p, minutes);
    out[p++] = 58;
    p = twoDigits(out, p, rest - minutes * 60);
    if (digits > 0) {
      out[p++] = 46; // .
      for (let k = p + digits - 1; k >= p; k--) {
        const q = (fraction / 10) | 0;
        out[k] = ZERO + fraction - q * 10;
        fraction = q;
      }
      p += digits;
    }
    return p;
  }
}

function writeOffset(
  out: Uint8Array,
  pos: number,
  texts: readonly Uint8Array[],
  before: string,
  offset: number,
  after: string,
): number {
  const ready = offset % 15 === 0 ? texts[(offset - MIN_OFFSET) / 15] : undefined;
  if (ready !== undefined) return copy(out, pos, ready);
  let p = copy(out, pos, ascii(before));
  p = writeInteger(out, p, offset);
  return copy(out, p, ascii(after));
}

function writeLocation(
  out: Uint8Array,
  pos: number,
  keys: LocationKeys,
  latE6: number | undefined,
  lonE6: number | undefined,
  distance: number | null,
  match: boolean | null,
): number {
  if (latE6 === undefined && lonE6 === undefined && distance === null && match === null) {
    return copy(out, pos, keys.unknown);
  }
  let p = latE6 === undefined ? copy(out, pos, NULL_TEXT) : writeMicros(out, pos, latE6);
  p = copy(out, p, keys.lon);
  p = lonE6 === undefined ? copy(out, p, NULL_TEXT) : writeMicros(out, p, lonE6);
  p = copy(out, p, keys.distance);
  p = distance === null ? copy(out, p, NULL_TEXT) : writeInteger(out, p, distance);
  return copy(out, p, match === null ? keys.matchNull : match ? keys.matchTrue : keys.matchFalse);
}

/** Copies bytes at pos; returns the position after them. A byte loop only pays below ~8 bytes. */
function copy(out: Uint8Array, pos: number, bytes: Uint8Array): number {
  const n = bytes.length;
  if (n > 8) {
    out.set(bytes, pos);
    return pos + n;
  }
  for (let k = 0; k < n; k++) out[pos + k] = bytes[k] ?? 0;
  return pos + n;
}

function twoDigits(out: Uint8Array, pos: number, n: number): number {
  const tens = (n / 10) | 0;
  out[pos] = ZERO + tens;
  out[pos + 1] = ZERO + n - tens * 10;
  return pos + 2;
}

/** An integer in decimal (int32 arithmetic while it fits, the common case). */
export function writeInteger(out: Uint8Array, pos: number, value: number): number {
  let p = pos;
  let n = value;
  if (n < 0) {
    out[p++] = 45; // -
    n = -n;
  }
  if (n > 0x7fffffff) return writeLargeInteger(out, p, n);
  const digits =
    n < 10
      ? 1
      : n < 100
        ? 2
        : n < 1_000
          ? 3
          : n < 10_000
            ? 4
            : n < 100_000
              ? 5
              : n < 1_000_000
                ? 6
                : n < 10_000_000
                  ? 7
                  : n < 100_000_000
                    ? 8
                    : n < 1_000_000_000
                      ? 9
                      : 10;
  for (let k = p + digits - 1; k >= p; k--) {
    const q = (n / 10) | 0;
    out[k] = ZERO + n - q * 10;
    n = q;
  }
  return p + digits;
}

function writeLargeInteger(out: Uint8Array, pos: number, value: number): number {
  const text = String(value);
  for (let k = 0; k < text.length; k++) out[pos + k] = text.charCodeAt(k);
  return pos + text.length;
}

/** millionths as a decimal number, the way JavaScript prints micros / 1e6 (no trailing zeros). */
export function writeMicros(out: Uint8Array, pos: number, micros: number): number {
  let p = pos;
  let n = micros;
  if (n < 0) {
    out[p++] = 45;
    n = -n;
  }
  const whole = (n / 1_000_000) | 0;
  let fraction = n - whole * 1_000_000;
  p = writeInteger(out, p, whole);
  if (fraction === 0) return p;
  let digits = 6;
  let q = (fraction / 10) | 0;
  while (fraction === q * 10) {
    fraction = q;
    q = (fraction / 10) | 0;
    digits--;
  }
  out[p++] = 46;
  for (let k = p + digits - 1; k >= p; k--) {
    const d = (fraction / 10) | 0;
    out[k] = ZERO + fraction - d * 10;
    fraction = d;
  }
  return p + digits;
}
