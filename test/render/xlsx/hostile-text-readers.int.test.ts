// A workbook written from rows full of characters XML 1.0 cannot hold, opened by the readers
// analysts use: openpyxl (a strict XML reader: it refuses a part that is not well-formed) and
// LibreOffice Calc (which silently stops at such a character). Every row must be there, each text
// as the CSV has it. Where openpyxl is missing, Python's expat checks each part instead; where
// LibreOffice is missing, its test is skipped (.ci/run installs both).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { spreadsheetSafeText } from '../../../src/domain/spreadsheet-safe-text.js';
import {
  libreOfficeShiftsSheet,
  OPENPYXL_PYTHON,
  openpyxlSheets,
  pythonParsesEveryPart,
  SHEET_CONVERSION_TIMEOUT_MS,
  SOFFICE,
} from '../../support/workbook-readers.js';
import { HOSTILE_SAMPLES, hostileWorkbookInput } from './hostile-text-fixtures.js';
import { renderWorkbook } from './workbook-io.js';

// Every sample several times over: a reader that stopped at the first bad character would show few.
// Few enough rows that LibreOffice reads them in well under its conversion timeout on a busy
// machine (300 rows took 54-58 s alone on a 2-core guest, and over 180 s with both cores busy).
const TEXTS = Array.from(
  { length: HOSTILE_SAMPLES.length * 4 },
  (_, i) => HOSTILE_SAMPLES[i % HOSTILE_SAMPLES.length] ?? '',
);
const COMMENT = SHIFT_COLUMNS.findIndex((column) => column.name === 'comment');
const DISPLAY_NAME = SHIFT_COLUMNS.findIndex((column) => column.name === 'user_display_name');

/** The text of row i's text cells as the workbook holds it (XML reads CR LF and CR as LF). */
function expectedText(i: number): string {
  return spreadsheetSafeText(`${i + 1} ${TEXTS[i] ?? ''}`).replace(/\r\n?/g, '\n');
}

let work: string;
let path: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'hostile-workbook-'));
  path = join(work, 'shifts.xlsx');
  writeFileSync(path, await renderWorkbook(hostileWorkbookInput(TEXTS)));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('a workbook written from rows full of XML-invalid characters', () => {
  it.runIf(OPENPYXL_PYTHON !== undefined)('opens in openpyxl with every row of every sheet', async () => {
    const sheets = await openpyxlSheets(path);
    const shifts = sheets['Shifts'] ?? [];
    expect(shifts).toHaveLength(TEXTS.length + 1);
    shifts.slice(1).forEach((row, i) => {
      expect(row[COMMENT]).toBe(expectedText(i));
      expect(row[DISPLAY_NAME]).toBe(expectedText(i));
    });
    expect(sheets['Rejected']).toHaveLength(TEXTS.length + 1);
    expect(Object.keys(sheets)).toEqual([
      'Overview',
      'Shifts',
      'By division',
      'By day',
      'By region',
      'By shop',
      'By user',
      'Rejected',
      'About',
    ]);
  });

  it.runIf(OPENPYXL_PYTHON === undefined)(
    'parses in Python’s expat, part by part (openpyxl missing)',
    async () => {
      await expect(pythonParsesEveryPart(path)).resolves.toBeUndefined();
    },
  );

  it.runIf(SOFFICE !== undefined)(
    'opens in LibreOffice with every row of the Shifts sheet',
    async () => {
      const rows = await libreOfficeShiftsSheet(path);
      expect(rows[0]).toEqual(SHIFT_COLUMNS.map((column) => column.header));
      expect(rows).toHaveLength(TEXTS.length + 1);
      rows.slice(1).forEach((row, i) => {
        expect(row[COMMENT]).toBe(expectedText(i));
        expect(row[DISPLAY_NAME]).toBe(expectedText(i));
      });
      // Longer than the conversion may take, so that a conversion that times out is killed, and its
      // folder removed, before vitest gives up on the test.
    },
    SHEET_CONVERSION_TIMEOUT_MS + 60_000,
  );
});
