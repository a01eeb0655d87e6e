// A workbook whose Shifts sheet is deflated in many blocks at once (parallel-deflate.ts), opened by
// the strict readers: Python's zipfile (testzip checks every entry's CRC-32 and length), openpyxl
// (a strict XML reader) and LibreOffice Calc. Every row must be there, the last one too: a block
// that ended the stream early, or a CRC that stopped at a block's edge, would show here. Where
// openpyxl or LibreOffice is missing, its test is skipped (.ci/run installs both).

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryData, zipEntries } from '../../../bench/zip-entries.js';
import { DEFLATE_BLOCK_BYTES } from '../../../src/render/xlsx/parallel-deflate.js';
import {
  libreOfficeShiftsSheet,
  OPENPYXL_PYTHON,
  openpyxlSheets,
  PYTHON,
  SOFFICE,
} from '../../support/workbook-readers.js';
import { shiftRecord } from './shift-fixtures.js';
import { renderWorkbook } from './workbook-io.js';

const run = promisify(execFile);
const ROWS = 4_000;
const TESTZIP = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    print('ok' if bad is None else 'bad: ' + bad)
`;

let work: string;
let path: string;
let bytes: Buffer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'parallel-deflate-'));
  path = join(work, 'shifts.xlsx');
  const shifts = Array.from({ length: ROWS }, (_, i) =>
    shiftRecord({ id: 100_000 + i, comment: `row ${i + 1} of ${ROWS}` }),
  );
  bytes = await renderWorkbook({ shifts });
  writeFileSync(path, bytes);
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('a workbook whose Shifts sheet was deflated in parallel blocks', () => {
  it('holds a sheet of several blocks, whose entry inflates to its recorded size and CRC-32', () => {
    const sheet = zipEntries(bytes).find((entry) => entry.name === 'xl/worksheets/sheet1.xml');
    expect(sheet?.size).toBeGreaterThan(3 * DEFLATE_BLOCK_BYTES);
    expect(entryData(sheet!).length).toBe(sheet!.size);
  });

  it.runIf(PYTHON !== undefined)("passes Python zipfile's testzip (every entry's CRC-32)", async () => {
    const { stdout } = await run(PYTHON!, ['-c', TESTZIP, path]);
    expect(stdout.trim()).toBe('ok');
  });

  it.runIf(OPENPYXL_PYTHON !== undefined)('opens in openpyxl with every row', async () => {
    const sheets = await openpyxlSheets(path, [0]);
    const shifts = sheets['Shifts'] ?? [];
    expect(shifts).toHaveLength(ROWS + 1);
    expect(shifts[ROWS]).toEqual([100_000 + ROWS - 1]);
  });

  it.runIf(SOFFICE !== undefined)(
    'opens in LibreOffice Calc with every row',
    async () => {
      const rows = await libreOfficeShiftsSheet(path);
      expect(rows).toHaveLength(ROWS + 1);
      expect(rows[ROWS]?.[0]).toBe(String(100_000 + ROWS - 1));
    },
    200_000,
  );
});
