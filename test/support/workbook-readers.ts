// The workbook opened by the readers analysts and their scripts use: openpyxl (Python) and
// LibreOffice Calc (headless). Each is optional on a developer's machine — the functions say
// whether the reader was there — and installed by .ci/run (Debian: python3-openpyxl,
// libreoffice-calc).

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * The first sheet as LibreOffice shows it, converted to CSV ("as shown", UTF-8), one array per
 * row. A private user profile: several conversions (other tests, other checkouts) may run at once.
 */
export async function libreOfficeFirstSheet(path: string): Promise<string[][]> {
  if (SOFFICE === undefined) throw new Error('no soffice');
  const work = mkdtempSync(join(tmpdir(), 'lo-read-'));
  try {
    await run(
      SOFFICE,
      [
        `-env:UserInstallation=file://${join(work, 'profile')}`,
        '--headless',
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,1',
        '--outdir',
        join(work, 'out'),
        path,
      ],
      { timeout: 180_000 },
    );
    const file = readdirSync(join(work, 'out')).find((name) => name.endsWith('.csv'));
    if (file === undefined) throw new Error('LibreOffice wrote no CSV');
    return parse(readFileSync(join(work, 'out', file), 'utf8'), { relax_column_count: true }) as string[][];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
