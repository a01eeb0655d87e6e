// Dates as each reader sees them: the workbook writes dates and date-times in the built-in formats
// 14 and 22, which name no date order, so LibreOffice (as Excel) shows them in the order of the
// reader's own locale: 01.05.2024 8:00 in Russia (Germany: 01.05.2024 08:00), 5/1/2024 8:00 in the
// United States. The cells stay the same serial numbers; a written code such as yyyy-mm-dd would
// have shown the same text to everyone.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import {
  libreOfficeShiftsSheet,
  NO_SOFFICE_REASON,
  SHEET_CONVERSION_TIMEOUT_MS,
} from '../../support/workbook-readers.js';
import { shiftRecord } from './shift-fixtures.js';
import { renderWorkbook } from './workbook-io.js';

const column = (name: string): number => SHIFT_COLUMNS.findIndex((c) => c.name === name);
const BUSINESS_DATE = column('business_date');
const START_LOCAL = column('start_local');
const START_UTC = column('start_utc');

let work: string;
let path: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'workbook-dates-'));
  path = join(work, 'shifts.xlsx');
  // Local 2024-05-01 08:00:00 (+03:00), 05:00:00 UTC.
  writeFileSync(path, await renderWorkbook({ shifts: [shiftRecord({ id: 1 })] }));
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(NO_SOFFICE_REASON !== undefined)(
  `dates in LibreOffice, in the reader's locale${NO_SOFFICE_REASON === undefined ? '' : ` (skipped: ${NO_SOFFICE_REASON})`}`,
  () => {
    it.each([
      ['ru_RU', '01.05.2024', '01.05.2024 8:00', '01.05.2024 5:00'],
      ['en_US', '5/1/2024', '5/1/2024 8:00', '5/1/2024 5:00'],
    ])(
      'shows them in %s as %s and %s, to the minute',
      async (locale, date, start, startUtc) => {
        const [, row] = await libreOfficeShiftsSheet(path, locale);
        expect([row?.[BUSINESS_DATE], row?.[START_LOCAL], row?.[START_UTC]]).toEqual([date, start, startUtc]);
      },
      SHEET_CONVERSION_TIMEOUT_MS + 30_000,
    );
  },
);
