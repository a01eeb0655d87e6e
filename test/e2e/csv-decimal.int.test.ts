// CSV_DECIMAL as the analysts it is for meet it: `shift-export run` with `CSV_DELIMITER=';'` (so a
// decimal comma by default), every CSV file imported by LibreOffice with a German locale, as a
// German user's Calc opens it, and every numeric column read back from the cells it made.

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnKind } from '../../src/domain/column.js';
import { REJECTED_COLUMNS } from '../../src/domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../src/domain/summary-columns.js';
import { parseManifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { SOFFICE, sofficeEnv } from '../support/workbook-readers.js';

const run = promisify(execFile);
const PERIOD = { from: '2024-03-25', to: '2024-03-31' };
const NUMERIC_KINDS: ReadonlySet<ColumnKind> = new Set(['integer', 'duration', 'decimal', 'rate', 'number']);

/** Every CSV column's kind by file. */
const KINDS: Readonly<Record<string, ReadonlyMap<string, ColumnKind>>> = Object.fromEntries(
  (
    [
      ['shifts.csv', SHIFT_COLUMNS],
      ['rejected.csv', REJECTED_COLUMNS],
      ['summary_by_division.csv', DIVISION_SUMMARY_COLUMNS],
      ['summary_by_day.csv', DAY_SUMMARY_COLUMNS],
      ['summary_by_region.csv', REGION_SUMMARY_COLUMNS],
      ['summary_by_shop.csv', SHOP_SUMMARY_COLUMNS],
      ['summary_by_user.csv', USER_SUMMARY_COLUMNS],
    ] as const
  ).map(([file, columns]) => [
    file,
    new Map((columns as readonly { name: string; kind: ColumnKind }[]).map((c) => [c.name, c.kind])),
  ]),
);

/** The CSV files converted by LibreOffice, German locale, `;` and `"` (one soffice run for all). */
async function importGerman(files: readonly string[], out: string): Promise<void> {
  await run(
    SOFFICE!,
    [
      `-env:UserInstallation=file://${join(out, 'profile')}`,
      '--headless',
      '--infilter=CSV:59,34,76,1,,1031',
      '--convert-to',
      'xlsx',
      '--outdir',
      out,
      ...files,
    ],
    { timeout: 300_000, env: sofficeEnv(out) },
  );
}

describe.runIf(SOFFICE !== undefined)('CSV_DELIMITER=; imported by a German LibreOffice', () => {
  let sandbox: RunningSandbox;
  let work: string;
  let dir: string;

  beforeAll(async () => {
    sandbox = await startTestSandbox({ rows: 600 });
    work = mkdtempSync(join(tmpdir(), 'csv-decimal-'));
    const result = await runCli(
      ['run', '--from', PERIOD.from, '--to', PERIOD.to, '--dest', work, '--format', 'csv'],
      cliEnv({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_ADMIN_TOKEN, CSV_DELIMITER: ';' }),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    dir = realpathSync(join(work, `${PERIOD.from}_${PERIOD.to}`));
    const csvFiles = readdirSync(dir)
      .filter((name) => name.endsWith('.csv'))
      .map((name) => join(dir, name));
    await importGerman(csvFiles, join(work, 'lo'));
  }, 400_000);

  afterAll(async () => {
    await sandbox?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('writes decimal commas, and LibreOffice reads every numeric column as the same number', async () => {
    const manifest = parseManifest(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const csvNames = manifest.files.map((f) => f.name).filter((name) => name.endsWith('.csv'));
    expect(csvNames.sort()).toEqual(Object.keys(KINDS).sort());
    let compared = 0;
    let fractions = 0;
    for (const name of csvNames) {
      const kinds = KINDS[name]!;
      const text = readFileSync(join(dir, name), 'utf8').replace(/^\uFEFF/, '');
      const [header, ...rows] = parse(text, { delimiter: ';' }) as string[][];
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(join(work, 'lo', name.replace(/\.csv$/, '.xlsx')));
      const sheet = workbook.worksheets[0]!;
      expect(sheet.rowCount, name).toBe(rows.length + 1);
      header!.forEach((column, c) => {
        const kind = kinds.get(column);
        expect(kind, `${name} ${column}`).toBeDefined();
        if (!NUMERIC_KINDS.has(kind!)) return;
        rows.forEach((row, r) => {
          const written = row[c]!;
          const cell = sheet.getRow(r + 2).getCell(c + 1).value;
          const where = `${name} row ${r + 1} ${column}: ${JSON.stringify(written)}`;
          if (written === '') {
            expect(cell ?? null, where).toBeNull();
            return;
          }
          expect(written, where).not.toContain('.');
          if (written.includes(',')) fractions++;
          expect(cell, where).toBe(Number(written.replace(',', '.')));
          compared++;
        });
      });
    }
    // Hours, rates, medians and coordinates were all there to be misread.
    expect(compared).toBeGreaterThan(5_000);
    expect(fractions).toBeGreaterThan(500);
  });
});
