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
