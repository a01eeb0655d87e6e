// The workbook opened by the readers analysts and their scripts use: openpyxl (Python) and
// LibreOffice Calc (headless). Each is optional on a developer's machine — the functions say
// whether the reader was there — and installed by .ci/run (Debian: python3-openpyxl,
// libreoffice-calc).

import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';

const run = promisify(execFile);

function works(command: string, args: readonly string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** A python3 that can import openpyxl (Debian's package installs it for /usr/bin/python3 only). */
export const OPENPYXL_PYTHON: string | undefined = ['python3', '/usr/bin/python3'].find((python) =>
  works(python, ['-c', 'import openpyxl']),
);

/** A python3 at all: its expat parser checks well-formedness when openpyxl is missing. */
export const PYTHON: string | undefined = ['python3', '/usr/bin/python3'].find((python) =>
  works(python, ['-c', 'import xml.dom.minidom']),
);

export const SOFFICE: string | undefined = works('soffice', ['--version']) ? 'soffice' : undefined;

// argv[2]: the 0-based columns to return, as JSON, or null for all (big sheets: keep it small).
const OPENPYXL_SCRIPT = `
import json, sys, openpyxl
book = openpyxl.load_workbook(sys.argv[1], read_only=True)
wanted = json.loads(sys.argv[2])
def shown(v):
    return v if v is None or isinstance(v, (str, int, float, bool)) else str(v)
sheets = {}
for ws in book.worksheets:
    rows = []
    for row in ws.iter_rows(values_only=True):
        values = [shown(v) for v in row]
        rows.append(values if wanted is None else [values[i] if i < len(values) else None for i in wanted])
    sheets[ws.title] = rows
print(json.dumps(sheets))
`;

/**
 * Every sheet's rows as openpyxl reads them (None as null), all columns or only `columns`
 * (0-based). Read-only mode, which streams each sheet as a strict XML parser reads it.
 */
export async function openpyxlSheets(
  path: string,
  columns?: readonly number[],
): Promise<Record<string, unknown[][]>> {
  if (OPENPYXL_PYTHON === undefined) throw new Error('no python3 with openpyxl');
  const { stdout } = await run(
    OPENPYXL_PYTHON,
    ['-c', OPENPYXL_SCRIPT, path, JSON.stringify(columns ?? null)],
    { maxBuffer: 512 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as Record<string, unknown[][]>;
}

const MINIDOM_SCRIPT = `
import sys, zipfile, xml.dom.minidom
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.endswith(('.xml', '.rels')):
            xml.dom.minidom.parseString(z.read(name))
print('ok')
`;

/** Python's expat parses every XML part (throws with its message when one is not well-formed). */
export async function pythonParsesEveryPart(path: string): Promise<void> {
  if (PYTHON === undefined) throw new Error('no python3');
  await run(PYTHON, ['-c', MINIDOM_SCRIPT, path]);
}

/** Where the (first) Shifts sheet is in the workbook: after the Overview. */
export const SHIFTS_SHEET_POSITION = 2;

/**
 * The Shifts sheet as LibreOffice shows it, converted to CSV ("as shown", UTF-8), one array per
 * row. A private user profile: several conversions (other tests, other checkouts) may run at once.
 * `locale` (en_US, ru_RU…): LibreOffice's, which picks how dates in the built-in formats show;
 * default the environment's.
 */
export async function libreOfficeShiftsSheet(path: string, locale?: string): Promise<string[][]> {
  if (SOFFICE === undefined) throw new Error('no soffice');
  const work = mkdtempSync(join(tmpdir(), 'lo-read-'));
  try {
    await runSoffice(
      join(work, 'profile'),
      [
        '--headless',
        '--convert-to',
        // The last option: which sheet, counted from 1.
        `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,${SHIFTS_SHEET_POSITION}`,
        '--outdir',
        join(work, 'out'),
        path,
      ],
      SHEET_CONVERSION_TIMEOUT_MS,
      locale,
    );
    const file = readdirSync(join(work, 'out')).find((name) => name.endsWith('.csv'));
    if (file === undefined) throw new Error('LibreOffice wrote no CSV');
    return parse(readFileSync(join(work, 'out', file), 'utf8'), { relax_column_count: true }) as string[][];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** How long one conversion may take before it is killed; a test that waits for one allows more. */
export const SHEET_CONVERSION_TIMEOUT_MS = 180_000;
export const PDF_CONVERSION_TIMEOUT_MS = 540_000;

/**
 * Runs soffice with a private user profile in `profile` (its URL: -env:UserInstallation), then
 * removes the single-instance pipe LibreOffice keeps in /tmp whatever TMPDIR says,
 * `OSL_PIPE_<uid>_SingleOfficeIPC_<hash>`: soffice removes it when it ends, but not when it is
 * killed at the timeout, and the system temp folder must be left as it was found. The hash is
 * LibreOffice's own (desktop/source/app/officeipcthread.cxx): the MD5 of the profile's URL in
 * UTF-16LE, each byte in hex without a leading zero.
 */
async function runSoffice(
  profile: string,
  args: readonly string[],
  timeout: number,
  locale?: string,
): Promise<void> {
  const url = `file://${profile}`;
  const env = sofficeEnv(profile);
  // LibreOffice takes its locale from LC_ALL or LANG; the glibc locale need not be installed.
  if (locale !== undefined) Object.assign(env, { LANG: `${locale}.UTF-8`, LC_ALL: `${locale}.UTF-8` });
  try {
    await run(SOFFICE ?? 'soffice', [`-env:UserInstallation=${url}`, ...args], { timeout, env });
  } finally {
    const hash = [...createHash('md5').update(Buffer.from(url, 'utf16le')).digest()]
      .map((byte) => byte.toString(16))
      .join('');
    const uid = process.getuid?.() ?? 0;
    rmSync(join('/tmp', `OSL_PIPE_${uid}_SingleOfficeIPC_${hash}`), { force: true });
  }
}

/**
 * LibreOffice's environment: its temp files (`lu*.tmp`, left behind when a conversion is killed)
 * go into `folder`, which the caller removes, not into the test file's TMPDIR, which the leak
 * guard checks.
 */
export function sofficeEnv(folder: string): NodeJS.ProcessEnv {
  const temp = join(folder, 'tmp');
  mkdirSync(temp, { recursive: true });
  return { ...process.env, TMPDIR: temp };
}

/** Why LibreOffice tests cannot run here, or undefined when they can. */
export const NO_SOFFICE_REASON: string | undefined =
  SOFFICE === undefined
    ? 'soffice is not installed (Debian: libreoffice-calc; .ci/run installs it)'
    : undefined;

/**
 * The workbook printed by LibreOffice as Calc prints it: `<dir>/<name>.pdf`. A private user
 * profile per conversion, so parallel runs do not collide on LibreOffice's lock.
 */
export async function libreOfficePdf(path: string, dir: string): Promise<string> {
  if (SOFFICE === undefined) throw new Error('no soffice');
  const profile = mkdtempSync(join(tmpdir(), 'lo-profile-'));
  try {
    await runSoffice(
      profile,
      ['--headless', '--convert-to', 'pdf', '--outdir', dir, path],
      PDF_CONVERSION_TIMEOUT_MS,
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  const pdf = join(dir, `${basename(path).replace(/\.[^.]+$/, '')}.pdf`);
  if (!existsSync(pdf)) throw new Error(`LibreOffice wrote no PDF for ${path}`);
  return pdf;
}

/** The page count pdfinfo (poppler-utils) reads. */
export async function pdfPageCount(pdf: string): Promise<number> {
  const { stdout } = await run('pdfinfo', [pdf]);
  const pages = /^Pages:\s+(\d+)/m.exec(stdout)?.[1];
  if (pages === undefined) throw new Error(`pdfinfo gave no page count for ${pdf}`);
  return Number(pages);
}

/** Each page's text, laid out as printed (pdftotext -layout), first page first. */
export async function pdfPageTexts(pdf: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-layout', pdf, '-'], { maxBuffer: 256 * 1024 * 1024 });
  // Pages end with a form feed; the last one too.
  return stdout.split('\f').slice(0, -1);
}

/** A page as an RGB picture (pdftoppm's PPM): width, height and 3 bytes a pixel, row by row. */
export interface PagePicture {
  readonly width: number;
  readonly height: number;
  readonly rgb: Buffer;
}

/** Page `page` (1-based) rendered by pdftoppm at `dpi`; also as `<pngBase>.png` when given. */
export async function pdfPagePicture(
  pdf: string,
  page: number,
  dpi: number,
  pngBase?: string,
): Promise<PagePicture> {
  const range = ['-f', String(page), '-l', String(page), '-r', String(dpi), '-singlefile'];
  if (pngBase !== undefined) await run('pdftoppm', [...range, '-png', pdf, pngBase]);
  const { stdout } = await run('pdftoppm', [...range, pdf], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
  });
  // Binary PPM: "P6\n<width> <height>\n<max>\n" then the pixels.
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(stdout.subarray(0, 64).toString('latin1'));
  if (header === null) throw new Error('pdftoppm wrote no PPM');
  return {
    width: Number(header[1]),
    height: Number(header[2]),
    rgb: stdout.subarray(header[0].length),
  };
}

/** A chart as openpyxl reads it back: its kind, anchor cell (0-based) and series' ranges. */
export interface OpenpyxlChart {
  readonly type: string;
  /** The kinds drawn in its plot area (a bar chart with a threshold line: BarChart, LineChart). */
  readonly plots: string[];
  readonly row: number;
  readonly column: number;
  readonly series: { readonly values: string; readonly categories: string }[];
}

const OPENPYXL_CHARTS_SCRIPT = `
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])[sys.argv[2]]
def ref(data):
    return (data.numRef or data.strRef).f
print(json.dumps([{
    'type': type(c).__name__,
    'plots': [type(p).__name__ for p in getattr(c, '_charts', [])],
    'row': c.anchor._from.row, 'column': c.anchor._from.col,
    'series': [{'values': ref(s.val), 'categories': ref(s.cat)} for s in c.series],
} for c in ws._charts]))
`;

/** The charts of a sheet as openpyxl (full mode, which reads drawings) reads them. */
export async function openpyxlCharts(path: string, sheet: string): Promise<OpenpyxlChart[]> {
  if (OPENPYXL_PYTHON === undefined) throw new Error('no python3 with openpyxl');
  const { stdout } = await run(OPENPYXL_PYTHON, ['-c', OPENPYXL_CHARTS_SCRIPT, path, sheet]);
  return JSON.parse(stdout) as OpenpyxlChart[];
}
