import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvRecordScanner } from '../../../src/export/row-changes/csv-record-scanner.js';

function scan(chunks: readonly (string | Buffer)[]): string[] {
  const records: string[] = [];
  const scanner = new CsvRecordScanner((r) => records.push(r.toString('utf8')));
  for (const c of chunks) scanner.push(typeof c === 'string' ? Buffer.from(c) : c);
  scanner.end();
  return records;
}

/** RFC 4180 field as our CSV writer quotes it. */
const field = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

describe('CsvRecordScanner', () => {
  it('skips the BOM and the header and drops CR LF', () => {
    expect(scan(['\uFEFFshift_id,comment\r\n1,a\r\n2,b\r\n'])).toEqual(['1,a', '2,b']);
  });

  it('keeps line breaks and delimiters inside quoted fields', () => {
    expect(scan(['h\r\n1,"a\r\nb, ""c"""\r\n2,x\r\n'])).toEqual(['1,"a\r\nb, ""c"""', '2,x']);
  });

  it('returns a last record without a line break', () => {
    expect(scan(['h\r\n1,a\r\n2,b'])).toEqual(['1,a', '2,b']);
  });

  it('gives the same records however the bytes are cut', () => {
    const rows = fc.array(
      fc.tuple(fc.nat(), fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', 'é', ' ') })),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(rows, fc.array(fc.nat({ max: 400 }), { maxLength: 6 }), (data, cuts) => {
        const lines = data.map(([id, text]) => `${id},${field(text)}`);
        const bytes = Buffer.from(`\uFEFFshift_id,comment\r\n${lines.map((l) => `${l}\r\n`).join('')}`);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let last = 0;
        for (const p of points) {
          chunks.push(bytes.subarray(last, p));
          last = p;
        }
        chunks.push(bytes.subarray(last));
        expect(scan(chunks)).toEqual(lines);
      }),
    );
  });
});
