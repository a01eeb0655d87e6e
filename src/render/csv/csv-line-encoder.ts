// RFC 4180 encoding of one record from cells that are already text (see cell-text.ts). A field is
// quoted when it contains the delimiter, a double quote, CR or LF, and its quotes are doubled;
// nothing else is ever quoted, so an empty string and a null cell are both an empty field.
//
// Records end with CRLF, as RFC 4180 says and as Excel itself saves CSV; every reader we care
// about (Excel, LibreOffice, pandas, csv-parse) takes both, and a fixed choice keeps outputs
// byte-identical across machines. The last record ends with CRLF too.
//
// This is a hand-written equivalent of csv-stringify with the settings the tests keep in
// test/render/csv/csv-stringify-options.ts (property-tested byte for byte against it):
// csv-stringify alone is slower than the CSV export's target rate (docs/performance.md).
// writeCsvTextField is `field` written straight into bytes, for the record encoder
// (csv-table-writer.ts); test/render/csv/csv-line-encoder.test.ts holds the two to each other.

import { writeNonAscii } from '../cell-bytes.js';

/**
 * The field delimiters we write: the one declaration (config/export-config.ts spells tab as `tab` in the
 * environment and may not import render/, so the type checker holds it to this one).
 */
export type CsvDelimiter = ',' | ';' | '\t';

export const CSV_RECORD_DELIMITER = '\r\n';

const NEEDS_QUOTES: Readonly<Record<CsvDelimiter, RegExp>> = {
  ',': /[",\r\n]/,
  ';': /[";\r\n]/,
  '\t': /["\t\r\n]/,
};

export class CsvLineEncoder {
  readonly delimiter: CsvDelimiter;
  readonly #needsQuotes: RegExp;

  constructor(delimiter: CsvDelimiter) {
    this.delimiter = delimiter;
    this.#needsQuotes = NEEDS_QUOTES[delimiter];
  }

  /** One field, quoted when it must be. */
  field(text: string): string {
    return this.#needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }

  /** One record with its CRLF. */
  line(cells: readonly string[]): string {
    let out = '';
    for (let i = 0; i < cells.length; i++) {
      if (i > 0) out += this.delimiter;
      out += this.field(cells[i] ?? '');
    }
    return out + CSV_RECORD_DELIMITER;
  }
}

const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const CR = 0x0d;
const LF = 0x0a;

/**
 * `text` as one field of a record, written as UTF-8 into `target` at `at` (what `field` gives,
 * encoded, in one pass): with a leading `'` when `guarded` (the formula guard, formula-guard.ts),
 * quoted when it must be. Returns the offset after it, or -1 when it might not fit.
 */
export function writeCsvTextField(
  text: string,
  guarded: boolean,
  delimiter: number,
  target: Uint8Array,
  at: number,
): number {
  const length = text.length;
  // Each unit takes at most 3 bytes (a doubled quote 2), plus two quotes and the guard.
  if (at + 3 * length + 3 > target.length) return -1;
  let i = at;
  let quoted = false;
  if (guarded) target[i++] = APOSTROPHE;
  for (let k = 0; k < length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x80) {
      if (c === QUOTE || c === delimiter || c === CR || c === LF) {
        if (!quoted) {
          // The field must be quoted after all: its bytes so far move one on for the opening quote.
          target.copyWithin(at + 1, at, i);
          target[at] = QUOTE;
          i++;
          quoted = true;
        }
        if (c === QUOTE) target[i++] = QUOTE;
      }
      target[i++] = c;
    } else {
      const before = i;
      i = writeNonAscii(text, k, c, target, i);
      if (i - before === 4) k++;
    }
  }
  if (quoted) target[i++] = QUOTE;
  return i;
}
