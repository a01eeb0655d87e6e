// The invalid rows of the `invalidRowRate` fault: each breaks the contract of spec 2.5 in one way a
// real upstream has been seen to (a missing or mistyped field, an impossible date, an offset out of
// range, an inverted or negative shift, an unknown enum value). The id is kept so the client can
// name the row it rejects.
//
// Some variants break what JSON.parse cannot show: a number it rounds (an id past 2^53, a
// fraction that rounds onto the whole id) and bytes that are not UTF-8. They are drawn only when
// named in `invalidRowVariants`, so the rows of the default variants stay as they always were.

import type { FinishedShift } from 'wfm-contract/finished-shift';

type Mutable = Record<string, unknown>;

export interface InvalidRowVariant {
  readonly name: string;
  /** Drawn when `invalidRowVariants` names none. */
  readonly byDefault: boolean;
  /** The row's bytes, broken. */
  readonly bytes: (row: FinishedShift) => Buffer;
}

const TWO_TO_53 = 2n ** 53n;
/** Added to the id by the "id past 2^53" variant. */
export const ID_OFFSET = 2n ** 56n;

/** A byte sequence that is not UTF-8 (a stray 0xFF, then a lead byte without its continuation). */
export const NOT_UTF8 = Buffer.from([0xff, 0xc3, 0x28]);
/** Stands in the comment for NOT_UTF8 until the row is bytes (U+E000, three bytes in UTF-8). */
const NOT_UTF8_MARK = '\uE000';

function broken(name: string, apply: (row: Mutable) => void): InvalidRowVariant {
  return {
    name,
    byDefault: true,
    bytes: (row) => {
      const copy: Mutable = { ...row };
      apply(copy);
      return Buffer.from(JSON.stringify(copy));
    },
  };
}

/**
 * The row (after `apply`) with the number of `field` written as `number(value)`, digits JSON.parse
 * cannot keep.
 */
function renumbered(
  name: string,
  field: 'id' | 'user_id',
  number: (value: number) => string,
  apply: (row: Mutable) => void = () => undefined,
): InvalidRowVariant {
  return {
    name,
    byDefault: false,
    bytes: (row) => {
      const copy: Mutable = { ...row };
      apply(copy);
      const member = `"${field}":${row[field]},`;
      return Buffer.from(JSON.stringify(copy).replace(member, `"${field}":${number(row[field])},`));
    },
  };
}

/** The row (after `apply`) with bytes that are not UTF-8 in its comment. */
function notUtf8(name: string, apply: (row: Mutable) => void): InvalidRowVariant {
  return {
    name,
    byDefault: false,
    bytes: (row) => {
      const copy: Mutable = { ...row, comment: `before ${NOT_UTF8_MARK} after` };
      apply(copy);
      const json = Buffer.from(JSON.stringify(copy));
      const mark = json.indexOf(NOT_UTF8_MARK);
      return Buffer.concat([
        json.subarray(0, mark),
        NOT_UTF8,
        json.subarray(mark + Buffer.byteLength(NOT_UTF8_MARK)),
      ]);
    },
  };
}

export const INVALID_ROW_VARIANTS: readonly InvalidRowVariant[] = [
  broken('missing user_id', (r) => void delete r.user_id),
  broken('missing start_time', (r) => void delete r.start_time),
  broken('missing shop_sap', (r) => void delete r.shop_sap),
  broken('duration as a string', (r) => (r.duration = String(r.duration))),
  broken('shop_id as a string', (r) => (r.shop_id = `#${String(r.shop_id)}`)),
  broken('unparseable start_time', (r) => (r.start_time = '31.02.2024 25:61')),
  broken('impossible finish_time', (r) => (r.finish_time = '2024-02-30T24:00:00')),
  broken('start offset 900', (r) => (r.start_time_offset = 900)),
  broken('finish offset -780', (r) => (r.finish_time_offset = -780)),
  broken('finish before start', (r) => {
    const start = r.start_time;
    r.start_time = r.finish_time;
    r.finish_time = start;
  }),
  broken('negative duration', (r) => (r.duration = -Math.max(1, Number(r.duration)))),
  broken("org level 'GALAXY'", (r) => (r.user_org_level = 'GALAXY')),
  broken('null user_login', (r) => (r.user_login = null)),
  broken('auto_finished as a string', (r) => (r.auto_finished = 'false')),
  broken('fractional user_id', (r) => (r.user_id = Number(r.user_id) + 0.5)),
  // The id plus 2^56, where doubles are 16 apart: distinct ids stay distinct as written, but
  // neighbours meet once JSON.parse has rounded them.
  renumbered('id past 2^53', 'id', (id) => String(BigInt(id) + ID_OFFSET)),
  renumbered('user_id past 2^53', 'user_id', (id) => String(BigInt(id) + TWO_TO_53)),
  // JSON.parse reads it as the id itself; only the text shows it is not (the missing start_time
  // has the row read from its text, see the validate stage).
  renumbered(
    'id with a fraction JSON.parse rounds away, missing start_time',
    'id',
    (id) => `${id}.000000000000000001`,
    (r) => void delete r.start_time,
  ),
  notUtf8('comment not UTF-8', () => undefined),
  notUtf8('comment not UTF-8, missing start_time', (r) => void delete r.start_time),
];

export const INVALID_ROW_VARIANT_NAMES = INVALID_ROW_VARIANTS.map((v) => v.name) as readonly string[];

const DEFAULT_VARIANTS = INVALID_ROW_VARIANTS.filter((v) => v.byDefault);

/**
 * The bytes of `row` broken by one of the variants named in `names` (default: the contract
 * breaks), picked by `draw` modulo their number.
 */
export function invalidRowBytes(row: FinishedShift, draw: number, names?: readonly string[]): Buffer {
  const variants =
    names === undefined ? DEFAULT_VARIANTS : INVALID_ROW_VARIANTS.filter((v) => names.includes(v.name));
  const variant = variants[draw % variants.length] ?? DEFAULT_VARIANTS[0]!;
  return variant.bytes(row);
}
