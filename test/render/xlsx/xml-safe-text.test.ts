import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { spreadsheetSafeText } from '../../../src/domain/spreadsheet-safe-text.js';
import { xmlSafeValue } from '../../../src/render/xlsx/xml-safe-text.js';
import { xmlPartProblems } from '../../support/workbook-xml.js';
import { HOSTILE_SAMPLES, hostileText, hostileWorkbookInput } from './hostile-text-fixtures.js';
import { readWorkbook, renderWorkbook, sheet } from './workbook-io.js';
import { isXmlChar } from '../../support/xml-char.js';

/** What a reader shows for a text the workbook holds: XML reads CR LF and a lone CR as LF. */
function shown(text: string): string {
  return spreadsheetSafeText(text).replace(/\r\n?/g, '\n');
}

describe('spreadsheetSafeText, the XML gate', () => {
  it('gives only XML 1.0 characters, whatever the string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), hostileText), (text) => {
        for (const c of spreadsheetSafeText(text)) expect(isXmlChar(c.codePointAt(0) ?? 0)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('gates the text of rich-text cells and leaves other values alone', () => {
    expect(xmlSafeValue({ richText: [{ text: ' a\uFFFE ' }] })).toEqual({
      richText: [{ text: ' a\uFFFD ' }],
    });
    const clean = { richText: [{ text: ' a ' }] } as const;
    expect(xmlSafeValue(clean)).toBe(clean);
    const date = new Date(0);
    expect([xmlSafeValue(1.5), xmlSafeValue(true), xmlSafeValue(null), xmlSafeValue(date)]).toEqual([
      1.5,
      true,
      null,
      date,
    ]);
  });
});

describe('a workbook written from text XML 1.0 cannot hold', () => {
  it('is well-formed XML in every part', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileText, { minLength: 1, maxLength: 6 }), async (texts) => {
        const bytes = await renderWorkbook(hostileWorkbookInput(texts));
        expect(xmlPartProblems(bytes)).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('shows every row, each text with U+FFFD where a character could not be held', async () => {
    const input = hostileWorkbookInput(HOSTILE_SAMPLES);
    const workbook = await readWorkbook(await renderWorkbook(input));
    const shifts = sheet(workbook, 'Shifts');
    expect(shifts.rowCount).toBe(HOSTILE_SAMPLES.length + 1);
    const textColumns = SHIFT_COLUMNS.flatMap((column, i) => (column.kind === 'text' ? [i + 1] : []));
    HOSTILE_SAMPLES.forEach((text, i) => {
      const expected = shown(`${i + 1} ${text}`);
      expect(expected).toContain('\uFFFD');
      for (const column of textColumns) {
        const name = SHIFT_COLUMNS[column - 1]?.name;
        if (name === 'user_org_level' || name === 'location_status') continue;
        expect(shifts.getRow(i + 2).getCell(column).text, name).toBe(expected);
      }
    });
    const rejected = sheet(workbook, 'Rejected');
    expect(rejected.rowCount).toBe(HOSTILE_SAMPLES.length + 1);
    expect(rejected.getRow(2).getCell(3).text).toBe(shown(`{"id":1000,"comment":"${HOSTILE_SAMPLES[0]}"}`));
    const about = sheet(workbook, 'About');
    const source = about.getColumn(1).values.findIndex((value) => value === 'Source');
    expect(about.getRow(source).getCell(2).text).toBe(
      shown(`https://wfm.example.com/${HOSTILE_SAMPLES.join('')}`),
    );
    expect(workbook.creator).toBe(shown(`shift-export ${HOSTILE_SAMPLES.join('')}`));
  });
});
