// Text full of what XML 1.0 cannot hold (U+FFFE, U+FFFF, unpaired surrogates, NUL and the other
// C0 controls, DEL), mixed with what it can (C1 controls, emoji, markup characters), and the
// workbook input that carries it in every text a workbook shows: every text column of the Shifts
// sheet, the summaries' names, the Rejected sheet, the About sheet's source, the creator.

import fc from 'fast-check';
import type { RejectedRow } from '../../../src/domain/rejected-row.js';
import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import type { ExportSummaries } from '../../../src/domain/summary.js';
import type { RenderInput } from './workbook-io.js';
import { about, shiftRecord, summaries } from './shift-fixtures.js';

const UNHOLDABLE = [
  '\uFFFE',
  '\uFFFF',
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uDFFF',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000B',
  '\u000C',
  '\u000E',
  '\u001B',
  '\u001F',
  '\u007F',
];
const HOLDABLE = [
  'a',
  'Ж',
  ' ',
  '\t',
  '\n',
  '\r',
  '<',
  '&',
  '"',
  "'",
  '=',
  '\u0085',
  '\u009F',
  '😀',
  '\uFFFD',
  '\uFDD0',
];

/** Text of 1-24 units, most of them unholdable. */
export const hostileText: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...UNHOLDABLE) },
    { weight: 2, arbitrary: fc.constantFrom(...HOLDABLE) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  ),
  minLength: 1,
  maxLength: 24,
});

/** One fixed sample per unholdable character, for tests that need a deterministic workbook. */
export const HOSTILE_SAMPLES: readonly string[] = UNHOLDABLE.map((c, i) => `row ${i} ${c} ends${c}`);

/** A shift whose every text column holds `text` (with its id in front, to tell rows apart). */
export function hostileShift(id: number, text: string): ShiftRecord {
  const t = `${id} ${text}`;
  return shiftRecord(
    {
      id,
      user_login: t,
      user_position: t,
      user_display_name: t,
      division_name: t,
      region_name: t,
      shop_sap: t,
      shop_locality: t,
      shop_address: t,
      comment: t,
    },
    { divisionExternalId: t, divisionManagers: t, qualityFlags: t },
  );
}

export function hostileRejected(id: number, text: string): RejectedRow {
  // Raw, not JSON-escaped: the gate must not rely on the text having been through JSON.stringify.
  return { id, reason: `start_time: ${text}`, rawJson: `{"id":${id},"comment":"${text}"}` };
}

export function hostileSummaries(text: string): ExportSummaries {
  const base = summaries();
  return {
    ...base,
    divisions: base.divisions.map((d) => ({
      ...d,
      divisionName: `${d.divisionName} ${text}`,
      divisionExternalId: text,
    })),
    days: base.days.map((d) => ({ ...d, divisionName: `${d.divisionName} ${text}` })),
    regions: base.regions.map((r) => ({ ...r, regionName: text, divisionName: text })),
    shops: [...base.shops].map((s) => ({ ...s, shopSap: text, shopLocality: text, regionName: text })),
    users: [...base.users].map((u) => ({ ...u, userLogin: text, userDisplayName: text })),
  };
}

/** A whole workbook's input with `texts` in every text it shows. */
export function hostileWorkbookInput(texts: readonly string[]): RenderInput {
  const text = texts.join('');
  return {
    shifts: texts.map((t, i) => hostileShift(i + 1, t)),
    rejected: texts.map((t, i) => hostileRejected(1000 + i, t)),
    summaries: hostileSummaries(text),
    about: about({ sourceBaseUrl: `https://wfm.example.com/${text}`, exportId: text, toolVersion: text }),
    options: { creator: `shift-export ${text}` },
  };
}
