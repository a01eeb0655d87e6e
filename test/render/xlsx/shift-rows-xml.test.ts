import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { RowXmlRenderer, xmlText } from '../../../src/render/xlsx/row-xml.js';
import {
  renderShiftRowsXml,
  SHARED_TEXT_SHIFT_COLUMNS,
  sharedTextOf,
  SHIFT_STYLES,
  shiftRowValues,
  type ShiftStyleIds,
} from '../../../src/render/xlsx/shift-rows-xml.js';
import { NO_SHARED_TEXTS, SharedTexts } from '../../../src/render/xlsx/shared-texts.js';
import { shiftRecord } from './shift-fixtures.js';

const STYLE_IDS: ShiftStyleIds = { columns: SHIFT_COLUMNS.map((_, i) => i + 1), unstyled: [[0, 0]], row: 0 };

describe('renderShiftRowsXml', () => {
  it("writes a cut's rows as the UTF-8 of each row's text, one after another", () => {
    // Comments of every width of UTF-8, a pair and an unpaired surrogate, and one long enough that
    // the buffer grows.
    const comments = [
      'plain',
      'Grüße',
      'смена',
      '早番',
      'late 😀 again',
      'half \ud83d pair',
      'x'.repeat(20_000),
    ];
    const records = Array.from({ length: 300 }, (_, k) =>
      shiftRecord({ id: k + 1, comment: comments[k % comments.length] ?? null }),
    );
    const renderer = new RowXmlRenderer(
      {
        addStyleModel: () => {
          throw new Error('no new styles');
        },
      },
      {
        styleIds: new Map(SHIFT_STYLES.map((style, i) => [style, i + 1])),
        unstyledIds: new Map([[0, 0]]),
        rowStyleId: 0,
      },
    );
    const expected = records
      .map((record, k) => renderer.render(7 + k, shiftRowValues(record), SHIFT_STYLES))
      .join('');
    expect(renderShiftRowsXml(records, 7, STYLE_IDS, NO_SHARED_TEXTS)?.equals(Buffer.from(expected))).toBe(
      true,
    );
  });

  it("writes the shared columns' texts as indices into the table, the others inline", () => {
    const records = Array.from({ length: 40 }, (_, k) =>
      shiftRecord({ id: k + 1, shop_address: `Street ${k % 3}`, comment: `note ${k}` }),
    );
    const added: string[] = [];
    const table = new SharedTexts({ add: (text) => added.push(text) - 1 });
    const xml = renderShiftRowsXml(records, 2, STYLE_IDS, table)?.toString('utf8') ?? '';
    // Three addresses, one index each; the comments (not a shared column) stay inline.
    expect(added.filter((text) => text.startsWith('Street '))).toEqual(['Street 0', 'Street 1', 'Street 2']);
    expect(xml).toContain('<v>note 39</v>');
    expect(xml).not.toContain('Street');
    // Each index put back as its text gives the rows written all inline.
    const inline = xml.replace(
      / t="s"><v>(\d+)<\/v>/g,
      (_, id: string) => ` t="str"><v>${xmlText(added[Number(id)] ?? '')}</v>`,
    );
    expect(inline).toBe(renderShiftRowsXml(records, 2, STYLE_IDS, NO_SHARED_TEXTS)?.toString('utf8'));
  });

  it("writes the same bytes from rows' own indices as from a table asked by text", () => {
    // As an export thread renders: each row's shared texts given their indices beforehand, in the
    // order the rows write them, by a table of the same bounds; texts it refuses, texts kept with
    // their edge white space and empty ones have none (-1) and are written from the row.
    const text = fc.constantFrom('Tverskaya 1', ' Arbat 2', 'Nevsky 3 ', '', 'Ленина 4', 'A & <B>');
    const row = fc.record({ shop_address: text, user_login: text, region_name: text, comment: text });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 25 }), fc.integer({ min: 0, max: 8 }), (rows, bound) => {
        const records = rows.map((fields, k) => shiftRecord({ id: k + 1, ...fields }));
        const limits = { texts: bound, chars: 1_000, longest: 100 };
        const byText = renderShiftRowsXml(records, 5, STYLE_IDS, new SharedTexts({ add: nextId() }, limits));
        const table = new SharedTexts({ add: nextId() }, limits);
        const columns = SHARED_TEXT_SHIFT_COLUMNS.length;
        const ids = new Int32Array(records.length * columns);
        records.forEach((record, k) => {
          for (let c = 0; c < columns; c++) {
            const shared = sharedTextOf(record, c);
            ids[k * columns + c] = shared === null ? -1 : table.idOf(shared);
          }
        });
        const byRow = renderShiftRowsXml(records, 5, STYLE_IDS, ids);
        expect(byRow?.toString('utf8')).toBe(byText?.toString('utf8'));
      }),
    );
  });

  it('gives bytes that start a buffer of their own, at most four times their length, so they can be moved', () => {
    // Wide rows after narrow ones (the buffer grows), narrow after wide (sized by the wide ones):
    // either way the whole buffer goes to the export's thread and counts against its memory.
    for (const comment of ['n', 'w'.repeat(6_000), 'n', 'n']) {
      const records = Array.from({ length: 50 }, (_, k) => shiftRecord({ id: k + 1, comment }));
      const xml = renderShiftRowsXml(records, 2, STYLE_IDS, NO_SHARED_TEXTS) as Buffer;
      expect(xml.byteOffset).toBe(0);
      expect(xml.buffer.byteLength).toBeLessThanOrEqual(4 * xml.byteLength);
      const text = xml.toString('utf8');
      const moved = structuredClone(xml, { transfer: [xml.buffer as ArrayBuffer] });
      expect(xml.byteLength).toBe(0);
      expect(Buffer.from(moved.buffer, moved.byteOffset, moved.byteLength).toString('utf8')).toBe(text);
    }
  });

  it('writes no bytes for no rows', () => {
    expect(renderShiftRowsXml([], 2, STYLE_IDS, NO_SHARED_TEXTS)?.length).toBe(0);
  });
});

/** A shared-strings sink that numbers the texts it is given from 0. */
function nextId(): (text: string) => number {
  let next = 0;
  return () => next++;
}
