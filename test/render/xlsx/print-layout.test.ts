// The workbook as a PDF or on paper: landscape A4, the header row on every page, the summary,
// Rejected and About sheets one page wide, the Shifts sheet six pages wide with its keys repeated.
// Checked in the raw sheet XML too: fitToWidth means nothing to Excel or LibreOffice without
// <sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>. LibreOffice's own rendering of it:
// workbook-in-libreoffice.int.test.ts.

import { describe, expect, it } from 'vitest';
import { SUMMARY_SHEET_NAMES } from '../../../src/render/xlsx/summary-sheets.js';
import { zipEntries } from '../../support/workbook-xml.js';
import { readWorkbook, renderWorkbook, sheet } from './workbook-io.js';
import { shiftRecord } from './shift-fixtures.js';

/** Sheet name to its worksheet XML, through workbook.xml and its relationships. */
function sheetXmls(bytes: Buffer): Map<string, string> {
  const parts = zipEntries(bytes);
  const text = (name: string): string => parts.get(name)?.toString('utf8') ?? '';
  const targets = new Map(
    [...text('xl/_rels/workbook.xml.rels').matchAll(/Id="([^"]+)"[^>]*Target="([^"]+)"/g)].map((m) => [
      m[1],
      m[2],
    ]),
  );
  const sheets = new Map<string, string>();
  for (const m of text('xl/workbook.xml').matchAll(/<sheet [^>]*name="([^"]+)"[^>]*r:id="([^"]+)"/g)) {
    sheets.set(m[1] ?? '', text(`xl/${targets.get(m[2] ?? '') ?? ''}`));
  }
  return sheets;
}

describe('print layout', () => {
  it('prints every table landscape with the header row repeated', async () => {
    const workbook = await readWorkbook(await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] }));
    for (const name of ['Shifts', ...SUMMARY_SHEET_NAMES, 'Rejected']) {
      const setup = sheet(workbook, name).pageSetup;
      expect(setup.orientation, name).toBe('landscape');
      expect(setup.paperSize, name).toBe(9);
      expect(setup.printTitlesRow, name).toBe('1:1');
    }
  });

  it('fits the summary, Rejected and About sheets to one page width, pages only going down', async () => {
    const bytes = await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] });
    const workbook = await readWorkbook(bytes);
    const xml = sheetXmls(bytes);
    for (const name of [...SUMMARY_SHEET_NAMES, 'Rejected', 'About']) {
      const setup = sheet(workbook, name).pageSetup;
      expect(setup.fitToWidth, name).toBe(1);
      expect(setup.fitToHeight, name).toBe(0);
      expect(setup.printTitlesColumn, name).toBeUndefined();
      expect(xml.get(name), name).toContain('<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>');
    }
  });

  it('prints the Shifts sheet six pages wide with its keys on every page', async () => {
    const bytes = await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] });
    const setup = sheet(await readWorkbook(bytes), 'Shifts').pageSetup;
    expect(setup.fitToWidth).toBe(6);
    expect(setup.fitToHeight).toBe(0);
    expect(setup.printTitlesColumn).toBe('A:B');
    expect(sheetXmls(bytes).get('Shifts')).toContain('<pageSetUpPr fitToPage="1"/>');
  });

  it("heads every page with its sheet and the period, and numbers the pages, in the reader's language", async () => {
    const english = await readWorkbook(await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] }));
    for (const worksheet of english.worksheets) {
      expect(worksheet.headerFooter.oddHeader, worksheet.name).toBe('&L&A&RShifts 2024-05-01 to 2024-05-07');
      expect(worksheet.headerFooter.oddFooter, worksheet.name).toBe('&CPage &P of &N');
    }
    const russian = await readWorkbook(
      await renderWorkbook({
        shifts: [shiftRecord({ id: 1 })],
        options: { language: 'ru', divisionName: 'Юг & Запад' },
      }),
    );
    for (const worksheet of russian.worksheets) {
      expect(worksheet.headerFooter.oddHeader, worksheet.name).toMatch(
        /^&L&A&CДивизион: Юг && Запад&RСмены: 1.7 мая 2024/,
      );
      expect(worksheet.headerFooter.oddFooter, worksheet.name).toBe('&CСтраница &P из &N');
    }
  });

  it('wraps long comments inside their column', async () => {
    const workbook = await readWorkbook(
      await renderWorkbook({ shifts: [shiftRecord({ id: 1, comment: 'x'.repeat(300) })] }),
    );
    const shifts = sheet(workbook, 'Shifts');
    const header = shifts.getRow(1).values as unknown[];
    const commentColumn = header.indexOf('Comment');
    expect(shifts.getRow(2).getCell(commentColumn).alignment?.wrapText).toBe(true);
  });
});
