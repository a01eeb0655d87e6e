import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { XlsxWorkbook } from '../../../src/render/xlsx/exceljs-adapter.js';
import { RowXmlRenderer, xmlText } from '../../../src/render/xlsx/row-xml.js';
import { TableSheet, type TableColumn } from '../../../src/render/xlsx/table-sheet.js';
import {
  cellStyleOf,
  columnLetters,
  HIGHLIGHT_FILL,
  xlsxValue,
  type XlsxStyle,
  type XlsxValue,
} from '../../../src/render/xlsx/xlsx-cells.js';
import { spreadsheetSafeText } from '../../../src/domain/spreadsheet-safe-text.js';
import { zipEntries } from '../../support/workbook-xml.js';
import { CREATED_AT, MemorySink } from './workbook-io.js';

const require = createRequire(import.meta.url);
// exceljs's own escaping, the oracle of xmlText.
const { xmlEncode } = require('exceljs/lib/utils/utils.js') as { xmlEncode(text: string): string };

type CellStyle = XlsxStyle | undefined;
/** The oracle's rows may hold Dates (exceljs's own date cells); TableSheet takes serial numbers. */
type Row = { values: (XlsxValue | Date)[]; styles: CellStyle[] };

function tableValue(value: XlsxValue | Date): XlsxValue {
  if (value instanceof Date) throw new Error('TableSheet rows hold serial numbers, not Dates');
  return value;
}

// Shared objects, as the writers use them: exceljs caches a style by its identity.
const STYLE_POOL: readonly CellStyle[] = [
  undefined,
  {},
  { numFmt: '0.00' },
  { numFmt: 'm/d/yy "h":mm' },
  { numFmt: '@', alignment: { wrapText: true, vertical: 'top' } },
  { font: { bold: true } },
  { numFmt: '0.00%', fill: HIGHLIGHT_FILL, font: { color: { argb: 'FF9C0006' }, bold: true } },
];

const text = fc.string({ unit: 'binary', maxLength: 12 });
const cellValue: fc.Arbitrary<XlsxValue> = fc.oneof(
  fc.constant(null),
  fc.constant(null),
  text,
  fc
    .oneof(text, fc.constantFrom(' late ', '\tx', 'a\nb', '\n'))
    .map((t) => ({ richText: [{ text: t }] as const })),
  fc.double(),
  fc.integer(),
  fc.boolean(),
);

const table = fc.integer({ min: 1, max: 30 }).chain((columns) =>
  fc
    .array(
      fc.record({
        values: fc.array(cellValue, { minLength: columns, maxLength: columns }),
        styles: fc.array(fc.constantFrom(...STYLE_POOL), { minLength: columns, maxLength: columns }),
      }),
      { maxLength: 25 },
    )
    .map((rows) => ({ columns, rows })),
);

function tableColumns(count: number): TableColumn[] {
  return Array.from({ length: count }, (_, i) => ({ header: `Column ${i + 1}`, width: 8 + i, style: {} }));
}

/** The whole workbook: rows written through TableSheet, or (oracle) through exceljs's row API. */
async function workbookBytes(
  columns: number,
  rows: readonly Row[],
  through: 'table' | 'exceljs',
): Promise<Buffer> {
  const sink = new MemorySink();
  const workbook = new XlsxWorkbook(sink, { createdAt: CREATED_AT, creator: 'row-xml test' });
  const sheet = TableSheet.open(workbook, 'Data', tableColumns(columns), { pagesWide: 4, repeatColumns: 2 });
  if (through === 'table') {
    for (const row of rows) sheet.addRow(row.values.map(tableValue), row.styles);
    sheet.close();
  } else {
    for (const row of rows) {
      // exceljs's row API, values through the XML gate; a null cell is unstyled, as in ours.
      sheet.sheet.addRow(
        row.values,
        row.values.map((value, i) => (value === null ? undefined : row.styles[i])),
      );
    }
    sheet.sheet.close({ lastRow: rows.length + 1, columns });
  }
  await workbook.finish({ title: '' });
  return sink.bytes;
}

/**
 * A sheet part with its rows in one canonical form: each row its number and style, each cell its
 * reference (where it names none, the column after the cell before it), attributes and content.
 * The row hints exceljs adds (spans, x14ac:dyDescent) are left out: ours leaves them out.
 */
function canonicalSheet(xml: string): string {
  return xml.replace(/<row ([^>]*)>(.*?)<\/row>/gs, (_row, attributes: string, cells: string) => {
    const rowNumber = /r="(\d+)"/.exec(attributes)?.[1] ?? '?';
    const rowRest = attributes.replace(/ ?(r|spans|x14ac:dyDescent)="[^"]*"/g, '').trim();
    let column = 0;
    const canonicalCells = cells.replace(
      /<c( r="([A-Z]+)\d+")?([^>]*?)(\/>|>(.*?)<\/c>)/gs,
      (_cell, _ref, letters: string | undefined, rest: string, end: string) => {
        column = letters === undefined ? column + 1 : columnNumber(letters);
        return `<c r="${columnLetters(column)}${rowNumber}"${rest}${end}`;
      },
    );
    return `<row r="${rowNumber}"${rowRest === '' ? '' : ` ${rowRest}`}>${canonicalCells}</row>`;
  });
}

function columnNumber(letters: string): number {
  return [...letters].reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0);
}

/** The same parts in the same order, each the same bytes; the sheet's rows the same cells. */
function expectSameWorkbook(ours: Buffer, exceljs: Buffer): void {
  const mine = zipEntries(ours);
  const theirs = zipEntries(exceljs);
  expect([...mine.keys()]).toEqual([...theirs.keys()]);
  for (const [name, bytes] of mine) {
    const other = theirs.get(name) ?? Buffer.alloc(0);
    if (name.startsWith('xl/worksheets/sheet')) {
      expect(canonicalSheet(bytes.toString('utf8')), name).toBe(canonicalSheet(other.toString('utf8')));
    } else {
      expect(bytes.equals(other), name).toBe(true);
    }
  }
}

describe('canonicalSheet', () => {
  it('gives a cell without a reference the column after the cell before it', () => {
    expect(
      canonicalSheet(
        '<row r="7"><c r="B7" s="1"><v>1</v></c><c t="b"><v>0</v></c><c r="E7"/><c s="2"/></row>',
      ),
    ).toBe(
      '<row r="7"><c r="B7" s="1"><v>1</v></c><c r="C7" t="b"><v>0</v></c><c r="E7"/><c r="F7" s="2"/></row>',
    );
    expect(canonicalSheet('<row r="2" spans="1:3" x14ac:dyDescent="0.25"><c r="A2"><v>1</v></c></row>')).toBe(
      '<row r="2"><c r="A2"><v>1</v></c></row>',
    );
  });
});

describe('xmlText', () => {
  it('is the XML gate, then exactly the escaping of exceljs', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(xmlText(s)).toBe(xmlEncode(spreadsheetSafeText(s)));
      }),
      { numRuns: 2000 },
    );
    expect(xmlText('a<b & "c" \'d\'\u0001\u007f\uFFFE\uD800\t\n\r😀')).toBe(
      'a&lt;b &amp; &quot;c&quot; &apos;d&apos;\uFFFD\uFFFD\uFFFD\uFFFD\t\n\r😀',
    );
  });
});

describe('columnLetters', () => {
  it('names columns as Excel does', () => {
    expect([1, 26, 27, 52, 53, 702, 703, 16_384].map(columnLetters)).toEqual([
      'A',
      'Z',
      'AA',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
      'XFD',
    ]);
  });
});

describe('TableSheet rows', () => {
  it('write the same workbook as exceljs writing the same rows (through the XML gate) and styles, cell for cell', async () => {
    await fc.assert(
      fc.asyncProperty(table, async ({ columns, rows }) => {
        const ours = await workbookBytes(columns, rows, 'table');
        const exceljs = await workbookBytes(columns, rows, 'exceljs');
        expectSameWorkbook(ours, exceljs);
      }),
      { numRuns: 100 },
    );
  });

  it('write a row into a buffer where it fits, and answer -1 where it might not, writing nothing before `at`', () => {
    fc.assert(
      fc.property(table, fc.nat({ max: 400 }), ({ rows }, room) => {
        const renderer = new RowXmlRenderer({ addStyleModel: (_, type) => 1 + (type ?? 0) });
        for (const [k, row] of rows.entries()) {
          const whole = renderer.render(k + 2, row.values, row.styles);
          const target = Buffer.alloc(room + 5, 0x7e);
          const end = renderer.renderInto(target, 5, k + 2, row.values, row.styles);
          expect(target.subarray(0, 5).toString('latin1')).toBe('~~~~~');
          if (end !== -1) expect(target.toString('utf8', 5, end)).toBe(whole);
          // Room for every byte six times over (an escaped quote, six bytes for one) is enough.
          else expect(room).toBeLessThan(6 * Buffer.byteLength(whole) + 20);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("name a cell's reference only where it starts the row or does not follow the cell before it", async () => {
    const rows: Row[] = [{ values: ['a', 1, null, true, 'z'], styles: [] }];
    const bytes = await workbookBytes(5, rows, 'table');
    const sheet = zipEntries(bytes).get('xl/worksheets/sheet1.xml')?.toString('utf8') ?? '';
    // A2 starts the row; C2 is empty (and so unstyled, as exceljs has it): D2 names itself, E2
    // follows it.
    expect(/<row r="2">.*?<\/row>/.exec(sheet)?.[0]).toBe(
      '<row r="2"><c r="A2" t="str"><v>a</v></c><c><v>1</v></c><c r="D2" t="b"><v>1</v></c><c t="str"><v>z</v></c></row>',
    );
  });

  it('skip a row without values but count it, as exceljs does', async () => {
    const rows: Row[] = [
      { values: [null, null], styles: [{ font: { bold: true } }, undefined] },
      { values: ['x', 1], styles: [undefined, { numFmt: '0.00' }] },
    ];
    const ours = await workbookBytes(2, rows, 'table');
    expectSameWorkbook(ours, await workbookBytes(2, rows, 'exceljs'));
  });

  it('spread over several writes into the sheet when they are long', async () => {
    const long = 'x'.repeat(5000);
    const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({
      values: [long, i, xlsxValue('localDateTime', Date.UTC(2024, 1, 29, 23, 30, i) / 1000)],
      styles: [undefined, STYLE_POOL[2], STYLE_POOL[3]],
    }));
    const ours = await workbookBytes(3, rows, 'table');
    expectSameWorkbook(ours, await workbookBytes(3, rows, 'exceljs'));
  });

  it('write a date or date-time serial number as exceljs writes the Date it stands for', async () => {
    const seconds = [
      -62_135_596_800,
      -1,
      0,
      951_868_799,
      Date.UTC(2024, 1, 29, 23, 30, 15) / 1000,
      253_402_300_799,
    ];
    const styles = [cellStyleOf({ kind: 'localDateTime' }), cellStyleOf({ kind: 'date' })];
    const days = seconds.map((s) => Math.floor(s / 86_400));
    const serials: Row[] = seconds.map((s, i) => ({
      values: [xlsxValue('localDateTime', s), xlsxValue('date', days[i]!)],
      styles,
    }));
    const dates: Row[] = seconds.map((s, i) => ({
      values: [new Date(s * 1000), new Date(days[i]! * 86_400_000)],
      styles,
    }));
    const ours = await workbookBytes(2, serials, 'table');
    expectSameWorkbook(ours, await workbookBytes(2, dates, 'exceljs'));
  });
});
