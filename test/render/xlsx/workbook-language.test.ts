// A workbook in the reader's language: its sheet names, header rows, the Overview's labels and
// chart titles, the About sheet and docProps/core.xml speak Russian when asked, every chart series
// and defined name refers to a sheet that exists under its Russian name, and the shifts' cells are
// the same bytes in both languages (a second language renders the same rows again, only the
// header differs).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECTED_COLUMNS } from '../../../src/domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { DAY_SUMMARY_COLUMNS } from '../../../src/domain/summary-columns.js';
import { ru } from '../../../src/i18n/workbook/ru.js';
import type { ColumnName } from '../../../src/i18n/workbook/workbook-messages.js';
import { OPENPYXL_PYTHON, openpyxlCharts, openpyxlSheets } from '../../support/workbook-readers.js';
import { xmlPartProblems, zipEntries } from '../../support/workbook-xml.js';
import { about, shiftRecord } from './shift-fixtures.js';
import { readWorkbook, renderWorkbook, rowValues, sheet } from './workbook-io.js';

const SHIFTS = [1, 2, 3].map((id) => shiftRecord({ id, comment: `смена ${id}` }));
const REJECTED = [{ id: 9, reason: 'start_time: not a date-time', rawJson: '{"id":9}' }];
const CHANGES = {
  previous: { export_id: 'exp-previous', generated_at: '2024-05-07T04:00:00.000Z' },
  changes: { previous_export_id: 'exp-previous', added: 2, removed: 1, changed: 1_234 },
};

const RUSSIAN_SHEETS = [
  'Обзор',
  'Смены',
  'Смены (2)',
  'По дивизионам',
  'По дням',
  'По регионам',
  'По магазинам',
  'По сотрудникам',
  'Отклонённые',
  'Описание',
];

let russian: Map<string, Buffer>;
let english: Map<string, Buffer>;
let russianBytes: Buffer;
let work: string;

function render(language?: 'ru'): Promise<Buffer> {
  return renderWorkbook({
    shifts: SHIFTS,
    rejected: REJECTED,
    about: about({ changes: CHANGES }),
    // Two rows a sheet: the third shift starts "Смены (2)".
    options: { sheetRowLimit: 2, ...(language === undefined ? {} : { language }) },
  });
}

beforeAll(async () => {
  russianBytes = await render('ru');
  russian = zipEntries(russianBytes);
  english = zipEntries(await render());
  work = mkdtempSync(join(tmpdir(), 'workbook-language-'));
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function part(parts: Map<string, Buffer>, name: string): string {
  const bytes = parts.get(name);
  if (bytes === undefined) throw new Error(`no part ${name}`);
  return bytes.toString('utf8');
}

/** XML text as a reader sees it: &amp; &apos; &quot; &lt; &gt; decoded. */
function unescaped(text: string): string {
  return text.replace(/&(amp|apos|quot|lt|gt);/g, (_, name: string) =>
    name === 'amp' ? '&' : name === 'apos' ? "'" : name === 'quot' ? '"' : name === 'lt' ? '<' : '>',
  );
}

function sheetNames(parts: Map<string, Buffer>): string[] {
  return [...part(parts, 'xl/workbook.xml').matchAll(/<sheet [^>]*name="([^"]*)"/g)].map((m) =>
    unescaped(m[1] ?? ''),
  );
}

/** The sheets a reference names: `'По регионам'!$B$2:$B$9` names По регионам (a doubled quote is one). */
function referencedSheets(formula: string): string[] {
  return [...formula.matchAll(/'((?:[^']|'')+)'!/g)].map((m) => (m[1] ?? '').replace(/''/g, "'"));
}

describe('a workbook in Russian', () => {
  it('names its sheets in Russian, in the workbook order', () => {
    expect(sheetNames(russian)).toEqual(RUSSIAN_SHEETS);
  });

  it('says in docProps/core.xml that it is in Russian, with a Russian title', () => {
    const core = part(russian, 'docProps/core.xml');
    expect(core).toContain('<dc:language>ru</dc:language>');
    expect(core).toMatch(/<dc:title>Смены: [^<]*2024[^<]*<\/dc:title>/);
    expect(part(english, 'docProps/core.xml')).toContain('<dc:language>en</dc:language>');
  });

  it('has chart series that each name a sheet of the workbook, the Overview by its Russian name', () => {
    const charts = [...russian.keys()].filter((name) => /^xl\/charts\/chart\d+\.xml$/.test(name));
    expect(charts).toHaveLength(2);
    const formulas = charts.flatMap((name) =>
      [...part(russian, name).matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => unescaped(m[1] ?? '')),
    );
    expect(formulas.length).toBeGreaterThan(6);
    for (const formula of formulas) expect(referencedSheets(formula), formula).toEqual(['Обзор']);
    expect(formulas[0]).toMatch(/^'Обзор'!\$[A-Z]+\$\d+$/);
  });

  it('has defined names (print titles) that each name a sheet of the workbook, quoted', () => {
    const workbook = part(russian, 'xl/workbook.xml');
    const definedNames = [...workbook.matchAll(/<definedName [^>]*>([^<]*)<\/definedName>/g)].map((m) =>
      unescaped(m[1] ?? ''),
    );
    expect(definedNames.length).toBeGreaterThanOrEqual(8);
    const names = new Set(sheetNames(russian));
    for (const formula of definedNames) {
      const sheets = referencedSheets(formula);
      expect(sheets.length, formula).toBeGreaterThan(0);
      for (const name of sheets) expect(names.has(name), `${formula} names no sheet`).toBe(true);
    }
    expect(definedNames).toContain("'Смены (2)'!$A:$B,'Смены (2)'!$1:$1");
  });

  it('titles its charts in Russian, marked as Russian text', () => {
    const bars = part(russian, 'xl/charts/chart1.xml');
    expect(bars).toContain('<a:rPr lang="ru" sz="1200" b="1"/>');
    expect(bars).toContain(`<a:t>${ru.overview.groups.division.barTitle}</a:t>`);
  });

  it('heads every table with the Russian headers of its columns', async () => {
    const workbook = await readWorkbook(russianBytes);
    const headers = (columns: readonly { name: string }[]): string[] =>
      columns.map((c) => ru.headers[c.name as ColumnName]);
    expect(rowValues(sheet(workbook, 'Смены'), 1)).toEqual(headers(SHIFT_COLUMNS));
    expect(rowValues(sheet(workbook, 'Смены (2)'), 1)).toEqual(headers(SHIFT_COLUMNS));
    expect(rowValues(sheet(workbook, 'По дням'), 1)).toEqual(headers(DAY_SUMMARY_COLUMNS));
    expect(rowValues(sheet(workbook, 'Отклонённые'), 1)).toEqual(headers(REJECTED_COLUMNS));
    expect(rowValues(sheet(workbook, 'По дивизионам'), 1)[0]).toBe('ID дивизиона');
  });

  it('labels the Overview, its totals and By day in Russian, its numbers written the Russian way', async () => {
    const workbook = await readWorkbook(russianBytes);
    const overview = sheet(workbook, 'Обзор');
    const labels = Array.from({ length: overview.rowCount }, (_, i) => rowValues(overview, i + 1));
    const beside = (label: string): unknown => labels.find((row) => row[0] === label)?.[1];
    expect(beside('Доля совпадений при начале')).toEqual(expect.any(Number));
    expect(beside('Строки, изменённые с прошлой выгрузки')).toBe(
      'изменено: 1\u00a0234, добавлено: 2, удалено: 1 (с выгрузки exp-previous)',
    );
    expect(beside('Дивизионы ниже порога')).toMatch(/^\d+ из \d+ ниже 80,0\u00a0% совпадений при начале/);
    // The longest Russian label is wider than the English column: the column follows it.
    expect(overview.getColumn(1).width).toBeGreaterThanOrEqual(
      'Доля совпадений при начале и окончании'.length,
    );
    const byDay = sheet(workbook, 'По дням');
    expect(rowValues(byDay, 2)[2]).toBe('Все дивизионы');
    const byDivision = sheet(workbook, 'По дивизионам');
    const total = Array.from({ length: byDivision.rowCount }, (_, i) => rowValues(byDivision, i + 1)[0]);
    expect(total).toContain('Все смены');
  });

  it('explains itself on the About sheet in Russian, keeping the CSV names', async () => {
    const workbook = await readWorkbook(russianBytes);
    const aboutSheet = sheet(workbook, 'Описание');
    const rows = Array.from({ length: aboutSheet.rowCount }, (_, i) => rowValues(aboutSheet, i + 1));
    expect(rows[0]?.[0]).toBe('Выгрузка смен');
    expect(rows.find((row) => row[0] === 'Листы')?.[1]).toBe(RUSSIAN_SHEETS.join(', '));
    expect(rows.find((row) => row[0] === 'Листы смен')?.[1]).toMatch(/^Не более 2 смен на листе/);
    expect(rows.find((row) => row[0] === 'Выделение')?.[1]).toContain('ниже 80,00\u00a0%');
    expect(rows.find((row) => row[2] === 'start_local')).toEqual([
      'Смены',
      'Начало (местное)',
      'start_local',
      ru.descriptions.shifts.start_local,
    ]);
  });

  it("writes the shifts' cells byte for byte as the English workbook does: only the header row differs", () => {
    for (const name of ['xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml']) {
      const rows = (parts: Map<string, Buffer>): string[] =>
        [...part(parts, name).matchAll(/<row r="(\d+)"[^>]*>.*?<\/row>/g)]
          .filter((m) => m[1] !== '1')
          .map((m) => m[0]);
      const russianRows = rows(russian);
      expect(russianRows.length).toBeGreaterThan(0);
      expect(russianRows).toEqual(rows(english));
    }
  });

  it('has only well-formed XML 1.0 parts', () => {
    expect(xmlPartProblems(russianBytes)).toEqual([]);
  });

  it.runIf(OPENPYXL_PYTHON !== undefined)('opens in openpyxl with every sheet and both charts', async () => {
    const path = join(work, 'ru.xlsx');
    writeFileSync(path, russianBytes);
    const sheets = await openpyxlSheets(path, [0, 1]);
    expect(Object.keys(sheets)).toEqual(RUSSIAN_SHEETS);
    expect(sheets['Смены']?.[0]).toEqual(['ID смены', 'Учётная дата']);
    const charts = await openpyxlCharts(path, 'Обзор');
    expect(charts.map((c) => c.type)).toEqual(['BarChart', 'LineChart']);
    for (const series of charts.flatMap((c) => c.series)) expect(series.values).toMatch(/^'Обзор'!/);
  });
});
