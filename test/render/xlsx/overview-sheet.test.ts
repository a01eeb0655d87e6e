// The Overview sheet: first in the workbook, its headline figures from the summaries and the
// export, rows changed told honestly, and two native charts — chart, drawing and relationship
// parts with their content types — whose ranges hold the sorted division rates and the daily
// rates. openpyxl reads the charts back (when installed); LibreOffice draws them in
// test/export/workbook-in-libreoffice.int.test.ts.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesText, OVERVIEW_SHEET_NAME } from '../../../src/render/xlsx/overview-sheet.js';
import { OPENPYXL_PYTHON, openpyxlCharts } from '../../support/workbook-readers.js';
import { xmlPartProblems, zipEntries } from '../../support/workbook-xml.js';
import { about, stats, summaries } from './shift-fixtures.js';
import { readWorkbook, renderWorkbook, rowValues, sheet } from './workbook-io.js';

const CHANGES = {
  previous: { export_id: 'exp-previous', generated_at: '2024-05-07T04:00:00.000Z' },
  changes: { previous_export_id: 'exp-previous', added: 2, removed: 1, changed: 3 },
};

let bytes: Buffer;
let overview: ExcelJS.Worksheet;
let parts: Map<string, Buffer>;
let work: string;

beforeAll(async () => {
  bytes = await renderWorkbook({ about: about({ changes: CHANGES }) });
  overview = sheet(await readWorkbook(bytes), OVERVIEW_SHEET_NAME);
  parts = zipEntries(bytes);
  work = mkdtempSync(join(tmpdir(), 'overview-'));
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** The value beside a label in column A. */
function figure(label: string): unknown {
  for (let row = 1; row <= overview.rowCount; row++) {
    const values = rowValues(overview, row);
    if (values[0] === label) return values[1];
  }
  throw new Error(`no "${label}" on the Overview`);
}

/** The 1-based row whose column A holds `label`. */
function rowOf(label: string): number {
  for (let row = 1; row <= overview.rowCount; row++) if (rowValues(overview, row)[0] === label) return row;
  throw new Error(`no "${label}" row`);
}

function text(part: string): string {
  const bytes = parts.get(part);
  if (bytes === undefined) throw new Error(`no part ${part}`);
  return bytes.toString('utf8');
}

function formulas(xml: string): string[] {
  return [...xml.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => (m[1] ?? '').replace(/&apos;/g, "'"));
}

describe('the Overview sheet', () => {
  it('is listed first, and the workbook opens on it', async () => {
    const workbook = await readWorkbook(bytes);
    expect(workbook.worksheets[0]?.name).toBe(OVERVIEW_SHEET_NAME);
    expect(text('xl/workbook.xml')).toMatch(/<sheets><sheet [^>]*name="Overview"/);
    // Print titles stay with their sheets: localSheetId counts in the listed order.
    expect(text('xl/workbook.xml')).toContain(
      '<definedName name="_xlnm.Print_Titles" localSheetId="1">&apos;Shifts&apos;!$A:$B,&apos;Shifts&apos;!$1:$1</definedName>',
    );
  });

  it('shows the period, the business-date rule and the headline figures', () => {
    expect(rowValues(overview, 1)[0]).toBe('Shifts 2024-05-01 to 2024-05-07');
    expect(figure('Business date')).toMatch(/local date of its start/);
    expect(figure('Shifts')).toBe(22);
    expect(figure('Hours')).toBe(80);
    expect(figure('Start match rate')).toBe(0.8);
    expect(figure('Finish match rate')).toBe(0.5);
    expect(figure('Start and finish match rate')).toBe(0.5);
    expect(figure('Share without location')).toBe(0);
    expect(figure('Share auto-finished')).toBeCloseTo(1 / 22, 12);
    expect(figure('Rejected rows')).toBe(2);
    expect(figure('Rows changed since the previous export')).toBe(
      '3 changed, 2 added, 1 removed (since export exp-previous)',
    );
    expect(figure('Divisions below the threshold')).toBe(
      '1 of 2 below 80.0% start match (red on By division)',
    );
  });

  it('holds the divisions lowest start-match rate first, those without a checked start left out', () => {
    const header = rowOf('Division');
    expect(rowValues(overview, header)).toEqual(['Division', 'Start match rate', 'Threshold']);
    expect(rowValues(overview, header + 1)).toEqual(['South', 0.7, 0.8]);
    expect(rowValues(overview, header + 2)).toEqual(['North', 0.9, 0.8]);
    expect(rowValues(overview, header + 3)).toEqual([]);
  });

  it('holds the daily rates of all divisions and of the lowest divisions, a gap where one had no shift', () => {
    const header = rowOf2('Business date');
    expect(rowValues(overview, header)).toEqual(['Business date', 'All divisions', 'South', 'North']);
    // Dates (serial days with a date format, which exceljs reads back as dates).
    expect(rowValues(overview, header + 1)).toEqual([new Date(Date.UTC(2024, 4, 1)), 0.9, undefined, 0.9]);
    expect(rowValues(overview, header + 2)).toEqual([new Date(Date.UTC(2024, 4, 2)), 0.7, 0.7]);
  });

  it('draws both charts from those cells: chart, drawing and relationship parts with their content types', () => {
    expect(xmlPartProblems(bytes)).toEqual([]);
    const division = rowOf('Division');
    const day = rowOf2('Business date');
    expect(formulas(text('xl/charts/chart1.xml'))).toEqual([
      `'Overview'!$B$${division}`,
      `'Overview'!$A$${division + 1}:$A$${division + 2}`,
      `'Overview'!$B$${division + 1}:$B$${division + 2}`,
      `'Overview'!$C$${division}`,
      `'Overview'!$A$${division + 1}:$A$${division + 2}`,
      `'Overview'!$C$${division + 1}:$C$${division + 2}`,
    ]);
    expect(formulas(text('xl/charts/chart2.xml'))).toEqual(
      ['B', 'C', 'D'].flatMap((column) => [
        `'Overview'!$${column}$${day}`,
        `'Overview'!$A$${day + 1}:$A$${day + 2}`,
        `'Overview'!$${column}$${day + 1}:$${column}$${day + 2}`,
      ]),
    );
    // The Overview's sheet part: found through workbook.xml and its relationships.
    const rid = /<sheet [^>]*name="Overview"[^>]*r:id="([^"]+)"/.exec(text('xl/workbook.xml'))?.[1];
    const target = new RegExp(`Id="${rid}"[^>]*Target="([^"]+)"`).exec(
      text('xl/_rels/workbook.xml.rels'),
    )?.[1];
    const sheetXml = text(`xl/${target}`);
    const drawingId = /<drawing r:id="([^"]+)"\/>/.exec(sheetXml)?.[1];
    expect(drawingId).toBeDefined();
    expect(sheetXml).toMatch(/<\/pageSetup>|<pageSetup [^>]*\/>.*<drawing /);
    const sheetRels = text(`xl/worksheets/_rels/${target?.split('/').pop()}.rels`);
    expect(sheetRels).toMatch(
      new RegExp(`Id="${drawingId}" Type="[^"]+/relationships/drawing" Target="../drawings/drawing1.xml"`),
    );
    expect(text('xl/drawings/_rels/drawing1.xml.rels')).toContain('Target="../charts/chart2.xml"');
    expect(text('xl/drawings/drawing1.xml').match(/<xdr:twoCellAnchor /g)).toHaveLength(2);
    const types = text('[Content_Types].xml');
    expect(types).toContain(
      '<Override PartName="/xl/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/>',
    );
    expect(types).toContain('<Override PartName="/xl/charts/chart2.xml"');
    expect(types).toContain(
      '<Override PartName="/xl/drawings/drawing1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>',
    );
  });

  it.runIf(OPENPYXL_PYTHON !== undefined)(
    'has charts openpyxl reads back: bars with a threshold line, and lines',
    async () => {
      const path = join(work, 'overview.xlsx');
      writeFileSync(path, bytes);
      const charts = await openpyxlCharts(path, OVERVIEW_SHEET_NAME);
      expect(charts.map((c) => [c.type, c.plots, c.row, c.column])).toEqual([
        ['BarChart', ['BarChart', 'LineChart'], 0, 3],
        ['LineChart', ['LineChart'], 21, 3],
      ]);
      const division = rowOf('Division');
      expect(charts[0]?.series).toEqual([
        {
          values: `'Overview'!$B$${division + 1}:$B$${division + 2}`,
          categories: `'Overview'!$A$${division + 1}:$A$${division + 2}`,
        },
      ]);
      expect(charts[1]?.series).toHaveLength(3);
    },
  );
});

/** The second row whose column A holds `label` (the daily table's header, after the headline's). */
function rowOf2(label: string): number {
  const rows: number[] = [];
  for (let row = 1; row <= overview.rowCount; row++)
    if (rowValues(overview, row)[0] === label) rows.push(row);
  const second = rows[1];
  if (second === undefined) throw new Error(`no second "${label}" row`);
  return second;
}

describe('the Overview of an export without shifts', () => {
  it('has the headline and no chart: nothing to draw, and no empty chart', async () => {
    const empty = summaries();
    const nothing = await renderWorkbook({
      summaries: {
        ...empty,
        overall: stats({ shifts: 0, durationSeconds: 0, startChecked: 0, startMatched: 0 }),
        divisions: [],
        days: [],
      },
    });
    const workbook = await readWorkbook(nothing);
    expect(workbook.worksheets.map((w) => w.name)[0]).toBe(OVERVIEW_SHEET_NAME);
    const first = sheet(workbook, OVERVIEW_SHEET_NAME);
    const labels = Array.from({ length: first.rowCount }, (_, i) => rowValues(first, i + 1));
    expect(labels.find((values) => values[0] === 'Chart data')?.[1]).toBe('none: no shifts in this period');
    const names = [...zipEntries(nothing).keys()];
    expect(names.filter((name) => /chart|drawing/.test(name))).toEqual([]);
    expect(zipEntries(nothing).get('[Content_Types].xml')?.toString('utf8')).not.toContain('chart');
    expect(xmlPartProblems(nothing)).toEqual([]);
  });
});

describe('changesText', () => {
  it('says when there is nothing to compare with, when changes were not counted and why, and when not known', () => {
    expect(changesText({})).toBe('nothing to compare with: the first export of this period');
    expect(
      changesText({
        changes: null,
        changes_unavailable: {
          reason: 'previous_row_hashes_missing',
          message: 'the previous export lists no row-hashes.bin',
        },
      }),
    ).toBe('not counted: the previous export lists no row-hashes.bin');
    expect(changesText(undefined)).toBe('not known');
  });
});
