import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { RowXmlRenderer } from '../../../src/render/xlsx/row-xml.js';
import {
  renderShiftRowsXml,
  SHIFT_STYLES,
  shiftRowValues,
  type ShiftStyleIds,
} from '../../../src/render/xlsx/shift-rows-xml.js';
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
    expect(renderShiftRowsXml(records, 7, STYLE_IDS)?.equals(Buffer.from(expected))).toBe(true);
  });

  it('writes no bytes for no rows', () => {
    expect(renderShiftRowsXml([], 2, STYLE_IDS)?.length).toBe(0);
  });
});
