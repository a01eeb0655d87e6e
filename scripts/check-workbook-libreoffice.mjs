// The workbook as a person opens it: exports a sandbox week as CSV and XLSX, has LibreOffice
// (headless) convert the Shifts sheet to CSV "as shown", and checks every cell against shifts.csv.
// LibreOffice runs in the en-US locale: dates and date-times are in the built-in formats 14 and 22,
// which show in the reader's date order (5/1/2024 8:00 there) and to the minute.
// Run by .ci/run after `npm run build`; needs `soffice` (Debian: libreoffice-calc).
//
//   node scripts/check-workbook-libreoffice.mjs [--keep DIR]

import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startSandbox } from 'wfm-sandbox';

const root = new URL('..', import.meta.url).pathname;
const { SHIFT_COLUMNS } = await import(join(root, 'dist/src/domain/shift-columns.js'));
const { guardFormula } = await import(join(root, 'dist/src/render/formula-guard.js'));

const keepIndex = process.argv.indexOf('--keep');
const work = keepIndex > 0 ? process.argv[keepIndex + 1] : mkdtempSync(join(tmpdir(), 'lo-check-'));
const sandbox = await startSandbox({ rows: 4000, seed: 11, endDate: '2024-02-29' });
let failures = 0;
try {
  const period = ['--from', '2024-02-23', '--to', '2024-02-29'];
  // Asynchronously: the sandbox answers from this very process.
  await promisify(execFile)(
    process.execPath,
    [join(root, 'bin/shift-export.js'), 'run', ...period, '--dest', work, '--format', 'csv,xlsx'],
    {
      env: {
        PATH: process.env.PATH,
        WFM_BASE_URL: sandbox.url,
        WFM_TOKEN: 'sandbox-admin',
        LOG_LEVEL: 'warn',
      },
    },
  );
  const dir = realpathSync(join(work, '2024-02-23_2024-02-29'));
  const out = join(work, 'lo');
  // Filter options: comma, double quotes, UTF-8, from line 1, …, "save cell contents as shown", sheet 2 (Shifts, after the Overview).
  execFileSync(
    'soffice',
    [
      '--headless',
      '--convert-to',
      'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,2',
      '--outdir',
      out,
      join(dir, 'shifts.xlsx'),
    ],
    {
      stdio: 'ignore',
      timeout: 120_000,
      env: { ...process.env, LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
    },
  );
  const loFile = readdirSync(out).find((f) => f.endsWith('.csv'));
  if (!loFile) throw new Error('LibreOffice wrote no CSV');
  const lo = parse(readFileSync(join(out, loFile), 'utf8'), { relax_column_count: false });
  const csv = parse(readFileSync(join(dir, 'shifts.csv'), 'utf8').replace(/^\uFEFF/, ''));
  const headers = SHIFT_COLUMNS.map((c) => c.header);
  if (JSON.stringify(lo[0]) !== JSON.stringify(headers))
    throw new Error(`LibreOffice headers differ: ${lo[0]}`);
  if (lo.length !== csv.length)
    throw new Error(`LibreOffice shows ${lo.length - 1} rows, shifts.csv has ${csv.length - 1}`);
  const report = (row, column, shown, expected) => {
    failures++;
    if (failures <= 20)
      console.error(
        `row ${row}, ${column.name}: LibreOffice shows ${JSON.stringify(shown)}, shifts.csv has ${JSON.stringify(expected)}`,
      );
  };
  for (let r = 1; r < csv.length; r++) {
    SHIFT_COLUMNS.forEach((column, c) => {
      const shown = lo[r][c];
      const expected = csv[r][c];
      if (!matches(column.kind, shown, expected)) report(r, column, shown, expected);
    });
  }
  console.log(
    `\nLibreOffice check: ${csv.length - 1} rows × ${SHIFT_COLUMNS.length} columns compared, ${failures} differences`,
  );
} finally {
  await sandbox.close();
  if (keepIndex < 0) rmSync(work, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;

function matches(kind, shown, expected) {
  switch (kind) {
    case 'text':
      // The CSV guards formula-like text with a leading ' ; the workbook shows the text as sent,
      // except that a cell's line breaks are LF (XML turns CR LF into LF; Excel does the same).
      expected = expected.replace(/\r\n?/g, '\n');
      return guardFormula(shown).replace(/\r\n?/g, '\n') === expected || shown === expected;
    case 'boolean':
      return shown.toLowerCase() === expected;
    case 'date':
      return shownAsIso(shown) === expected;
    case 'localDateTime':
    case 'utcDateTime':
      // 2024-02-23 09:02:46 (local) or 2024-02-23T09:02:46Z (UTC), to the minute.
      return expected === ''
        ? shown === ''
        : shownAsIso(shown) === expected.replace('T', ' ').replace(/Z$/, '').slice(0, 16);
    case 'duration': {
      // [h]:mm of the seconds: LibreOffice drops the seconds (9:02:46 shows as 9:02).
      const [h, m] = shown.split(':').map(Number);
      return h * 60 + m === Math.floor(Number(expected) / 60);
    }
    case 'number':
    case 'decimal':
    case 'integer':
      return expected === '' ? shown === '' : Number(shown) === Number(expected);
    default:
      return shown === expected;
  }
}

/** m/d/yyyy, or m/d/yyyy h:mm, as en-US shows formats 14 and 22: as yyyy-mm-dd[ hh:mm]. */
function shownAsIso(shown) {
  const parts = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2}))?$/.exec(shown);
  if (parts === null) return undefined;
  const [, month, day, year, hour, minute] = parts;
  const date = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  return hour === undefined ? date : `${date} ${hour.padStart(2, '0')}:${minute}`;
}
