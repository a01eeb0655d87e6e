// The invalid rows of the `invalidRowRate` fault: each breaks the contract of spec 2.5 in one way a
// real upstream has been seen to (a missing or mistyped field, an impossible date, an offset out of
// range, an inverted or negative shift, an unknown enum value). The id is kept so the client can
// name the row it rejects.

import type { FinishedShift } from '../domain/finished-shift.js';

type Mutable = Record<string, unknown>;

export const INVALID_ROW_VARIANTS: readonly {
  readonly name: string;
  readonly apply: (row: Mutable) => void;
}[] = [
  { name: 'missing user_id', apply: (r) => void delete r.user_id },
  { name: 'missing start_time', apply: (r) => void delete r.start_time },
  { name: 'missing shop_sap', apply: (r) => void delete r.shop_sap },
  { name: 'duration as a string', apply: (r) => (r.duration = String(r.duration)) },
  { name: 'shop_id as a string', apply: (r) => (r.shop_id = `#${String(r.shop_id)}`) },
  { name: 'unparseable start_time', apply: (r) => (r.start_time = '31.02.2024 25:61') },
  { name: 'impossible finish_time', apply: (r) => (r.finish_time = '2024-02-30T24:00:00') },
  { name: 'start offset 900', apply: (r) => (r.start_time_offset = 900) },
  { name: 'finish offset -780', apply: (r) => (r.finish_time_offset = -780) },
  {
    name: 'finish before start',
    apply: (r) => {
      const start = r.start_time;
      r.start_time = r.finish_time;
      r.finish_time = start;
    },
  },
  { name: 'negative duration', apply: (r) => (r.duration = -Math.max(1, Number(r.duration))) },
  { name: "org level 'GALAXY'", apply: (r) => (r.user_org_level = 'GALAXY') },
  { name: 'null user_login', apply: (r) => (r.user_login = null) },
  { name: 'auto_finished as a string', apply: (r) => (r.auto_finished = 'false') },
  { name: 'fractional user_id', apply: (r) => (r.user_id = Number(r.user_id) + 0.5) },
];

/** A copy of `row` broken by variant `variant` (taken modulo the number of variants). */
export function invalidRow(row: FinishedShift, variant: number): Mutable {
  const copy: Mutable = { ...row };
  INVALID_ROW_VARIANTS[variant % INVALID_ROW_VARIANTS.length]?.apply(copy);
  return copy;
}
