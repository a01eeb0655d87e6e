import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { XlsxWorkbook } from '../../../src/render/xlsx/exceljs-adapter.js';
import { xmlText } from '../../../src/render/xlsx/row-xml.js';
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
  it('write the same workbook bytes as exceljs writing the same rows (through the XML gate) and styles', async () => {
    await fc.assert(
      fc.asyncProperty(table, async ({ columns, rows }) => {
        const ours = await workbookBytes(columns, rows, 'table');
        const exceljs = await workbookBytes(columns, rows, 'exceljs');
        expect(ours.equals(exceljs)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('skip a row without values but count it, as exceljs does', async () => {
    const rows: Row[] = [
      { values: [null, null], styles: [{ font: { bold: true } }, undefined] },
      { values: ['x', 1], styles: [undefined, { numFmt: '0.00' }] },
    ];
    const ours = await workbookBytes(2, rows, 'table');
    expect(ours.equals(await workbookBytes(2, rows, 'exceljs'))).toBe(true);
  });

  it('spread over several writes into the sheet when they are long', async () => {
    const long = 'x'.repeat(5000);
    const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({
      values: [long, i, xlsxValue('localDateTime', Date.UTC(2024, 1, 29, 23, 30, i) / 1000)],
      styles: [undefined, STYLE_POOL[2], STYLE_POOL[3]],
    }));
    const ours = await workbookBytes(3, rows, 'table');
    expect(ours.equals(await workbookBytes(3, rows, 'exceljs'))).toBe(true);
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
    expect(ours.equals(await workbookBytes(2, dates, 'exceljs'))).toBe(true);
  });
});
