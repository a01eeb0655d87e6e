import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CsvLineEncoder,
  writeCsvTextField,
  type CsvDelimiter,
} from '../../../src/render/csv/csv-line-encoder.js';
import { csvStringifyOptions } from './csv-stringify-options.js';
import { nastyText, nastyTextWithLoneSurrogates } from './nasty-text.js';

const DELIMITERS: readonly CsvDelimiter[] = [',', ';', '\t'];

/** A header and rows of the same width, 1 to 6 columns. */
const table = (text: fc.Arbitrary<string>): fc.Arbitrary<{ header: string[]; rows: string[][] }> =>
  fc.integer({ min: 1, max: 6 }).chain((width) =>
    fc.record({
      header: fc.array(text, { minLength: width, maxLength: width }),
      rows: fc.array(fc.array(text, { minLength: width, maxLength: width }), { maxLength: 6 }),
    }),
  );

function encode(
  encoder: CsvLineEncoder,
  header: readonly string[],
  rows: readonly string[][],
  bom: boolean,
): string {
  return (bom ? '\uFEFF' : '') + encoder.line(header) + rows.map((r) => encoder.line(r)).join('');
}

describe('CsvLineEncoder', () => {
  it.each<[string, string, string]>([
    ['a plain field as it is', 'Ivan', 'Ivan'],
    ['an empty field as nothing', '', ''],
    ['a field with the delimiter in quotes', 'a,b', '"a,b"'],
    ['a field with quotes in quotes, doubled', 'say "hi"', '"say ""hi"""'],
    ['a field with LF in quotes', 'a\nb', '"a\nb"'],
    ['a field with a lone CR in quotes', 'a\rb', '"a\rb"'],
    ['a field with CRLF in quotes', 'a\r\nb', '"a\r\nb"'],
    ['a semicolon unquoted when the delimiter is a comma', 'a;b', 'a;b'],
    ['a leading formula character unchanged (the guard is not its job)', '=1', '=1'],
  ])('writes %s', (_name, text, expected) => {
    expect(new CsvLineEncoder(',').field(text)).toBe(expected);
  });

  it('quotes the delimiter it was given, and only that one', () => {
    expect(new CsvLineEncoder(';').line(['a;b', 'a,b'])).toBe('"a;b";a,b\r\n');
    expect(new CsvLineEncoder('\t').line(['a\tb', 'a;b'])).toBe('"a\tb"\ta;b\r\n');
  });

  it('ends every record with CRLF', () => {
    expect(new CsvLineEncoder(',').line(['a', '', 'c'])).toBe('a,,c\r\n');
  });

  it.each(DELIMITERS.map((d) => [JSON.stringify(d), d] as const))(
    'writes byte for byte what csv-stringify writes with delimiter %s',
    (_name, delimiter) => {
      const encoder = new CsvLineEncoder(delimiter);
      fc.assert(
        fc.property(table(nastyTextWithLoneSurrogates), fc.boolean(), ({ header, rows }, bom) => {
          const ours = Buffer.from(encode(encoder, header, rows, bom), 'utf8');
          const theirs = Buffer.from(
            stringify(rows, csvStringifyOptions(header, { delimiter, bom })),
            'utf8',
          );
          expect(ours.equals(theirs)).toBe(true);
        }),
        { numRuns: 1500 },
      );
    },
  );

  it.each(DELIMITERS.map((d) => [JSON.stringify(d), d] as const))(
    'is read back exactly by csv-parse with delimiter %s',
    (_name, delimiter) => {
      const encoder = new CsvLineEncoder(delimiter);
      fc.assert(
        fc.property(table(nastyText), ({ header, rows }) => {
          const text = encode(encoder, header, rows, true);
          expect(parse(text, { bom: true, delimiter })).toEqual([header, ...rows]);
        }),
        { numRuns: 1500 },
      );
    },
  );
});

describe('writeCsvTextField', () => {
  it('writes the UTF-8 bytes of the field CsvLineEncoder gives, with the guard’s quote when asked', () => {
    fc.assert(
      fc.property(
        fc.oneof(nastyTextWithLoneSurrogates, fc.string({ unit: 'binary' })),
        fc.boolean(),
        fc.constantFrom(...DELIMITERS),
        (text, guarded, delimiter) => {
          const target = Buffer.alloc(3 * text.length + 5);
          const end = writeCsvTextField(text, guarded, delimiter.charCodeAt(0), target, 2);
          const field = new CsvLineEncoder(delimiter).field(guarded ? `'${text}` : text);
          expect(target.subarray(2, end)).toEqual(Buffer.from(field));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('answers -1 when the field might not fit', () => {
    expect(writeCsvTextField('abc', false, 0x2c, Buffer.alloc(11), 0)).toBe(-1);
    expect(writeCsvTextField('abc', false, 0x2c, Buffer.alloc(12), 0)).toBe(3);
  });
});
