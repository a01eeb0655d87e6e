// An export asked for a Russian workbook, as `run` and the worker assemble it (ConfiguredExport):
// shifts.xlsx speaks Russian, and everything automation reads is what an English export writes —
// the same file names, the same CSV bytes, the same Parquet columns; the manifest differs only in
// the workbook's size and hash. LibreOffice prints the Russian Overview first.

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import type { Manifest } from '../../src/render/manifest.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { libreOfficePdf, NO_SOFFICE_REASON, pdfPageTexts } from '../support/workbook-readers.js';
import { zipEntries } from '../support/workbook-xml.js';
import { runConfiguredExport } from '../support/run-configured-export.js';

const PERIOD = { from: '2024-03-25', to: '2024-03-31' };

let sandbox: RunningSandbox;
let work: string;
let english: string;
let russian: string;

/** The published folder of the period (the link to the export's own folder). */
function published(dest: string): string {
  return join(dest, `${PERIOD.from}_${PERIOD.to}`);
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function manifest(dest: string): Manifest {
  return JSON.parse(readFileSync(join(published(dest), 'manifest.json'), 'utf8')) as Manifest;
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 600 });
  work = mkdtempSync(join(tmpdir(), 'workbook-language-'));
  english = join(work, 'en');
  russian = join(work, 'ru');
  const env = (dest: string): Record<string, string> => ({
    EXPORT_DEST: dest,
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: SANDBOX_READER_TOKEN,
  });
  await runConfiguredExport(env(english), PERIOD, ['csv', 'xlsx', 'parquet']);
  await runConfiguredExport(env(russian), PERIOD, ['csv', 'xlsx', 'parquet'], 'ru');
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('an export asked for a Russian workbook', () => {
  it('writes shifts.xlsx in Russian, saying so in docProps/core.xml', () => {
    const parts = zipEntries(readFileSync(join(published(russian), 'shifts.xlsx')));
    const workbook = parts.get('xl/workbook.xml')?.toString('utf8') ?? '';
    expect([...workbook.matchAll(/<sheet [^>]*name="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'Обзор',
      'Смены',
      'По дивизионам',
      'По дням',
      'По регионам',
      'По магазинам',
      'По сотрудникам',
      'Отклонённые',
      'Описание',
    ]);
    expect(parts.get('docProps/core.xml')?.toString('utf8')).toContain('<dc:language>ru</dc:language>');
  });

  it('keeps the file names, and the CSV and Parquet files byte for byte as in English', () => {
    const files = (dest: string): string[] => readdirSync(published(dest)).sort();
    expect(files(russian)).toEqual(files(english));
    const data = files(english).filter((file) => /\.(csv|parquet)$/.test(file));
    expect(data).toContain('shifts.parquet');
    expect(data.length).toBeGreaterThan(6);
    for (const name of data)
      expect(sha256(join(published(russian), name)), name).toBe(sha256(join(published(english), name)));
  });

  it('lists the same files in its manifest, the workbook with its own size and hash', () => {
    const names = (m: Manifest): string[] => m.files.map((file) => file.name);
    expect(names(manifest(russian))).toEqual(names(manifest(english)));
    expect(manifest(russian).counts).toEqual(manifest(english).counts);
  });

  it.skipIf(NO_SOFFICE_REASON !== undefined)(
    'prints in LibreOffice with the Russian Overview first',
    async () => {
      const pdf = await libreOfficePdf(join(published(russian), 'shifts.xlsx'), work);
      const [first] = await pdfPageTexts(pdf);
      expect(first).toContain('Смены: ');
      expect(first).toContain('Доля совпадений при начале');
      expect(first).toContain('Дивизионы ниже порога');
    },
    600_000,
  );
});
