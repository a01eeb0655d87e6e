// The workbook as a PDF or on paper: landscape A4, the header row on every page, the Shifts and
// summary keys repeated across pages, and the About sheet one page wide.

import { describe, expect, it } from 'vitest';
import { readWorkbook, renderWorkbook, sheet } from './workbook-io.js';
import { shiftRecord } from './shift-fixtures.js';

describe('print layout', () => {
  it('prints tables landscape with the header row and key columns repeated', async () => {
    const workbook = await readWorkbook(await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] }));
    const shifts = sheet(workbook, 'Shifts').pageSetup;
    expect(shifts.orientation).toBe('landscape');
    expect(shifts.printTitlesRow).toBe('1:1');
    expect(shifts.printTitlesColumn).toBe('A:B');
    expect(sheet(workbook, 'By shop').pageSetup.printTitlesColumn).toBe('A:E');
    expect(sheet(workbook, 'By division').pageSetup.printTitlesColumn).toBe('A:C');
  });

  it('fits the Rejected and About sheets to one page width', async () => {
    const workbook = await readWorkbook(await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] }));
    for (const name of ['Rejected', 'About']) {
      const setup = sheet(workbook, name).pageSetup;
      expect(setup.fitToPage, name).toBe(true);
      expect(setup.fitToWidth, name).toBe(1);
      expect(setup.fitToHeight, name).toBe(0);
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
