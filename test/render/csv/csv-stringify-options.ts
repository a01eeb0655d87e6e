// The csv-stringify 6 settings that produce exactly what CsvLineEncoder / CsvTableWriter produce
// from the same text cells. csv-stringify is the oracle of the encoder's property tests and the
// baseline of the benchmark; the export itself uses the faster hand-written encoder.
//
// Two of these settings are not csv-stringify's defaults and matter:
// - `quote_record_delimiter: true`: once `record_delimiter` is given, csv-stringify stops quoting
//   fields that contain a lone LF or CR (only the record delimiter itself triggers quotes), which
//   would split a multi-line comment into several records.
// - `escape_formulas: false`: the cells arrive already formatted (cell-text.ts), and its guard
//   would also prefix the text of a negative number such as `-12`; ours runs on text cells only.

import type { Options } from 'csv-stringify';
import { CSV_RECORD_DELIMITER } from '../../../src/render/csv/csv-line-encoder.js';
import type { CsvTableOptions } from '../../../src/render/csv/csv-table-writer.js';

/** csv-stringify options equal to CsvTableWriter's output, for rows given as arrays of text cells. */
export function csvStringifyOptions(header: readonly string[], options: CsvTableOptions): Options {
  return {
    delimiter: options.delimiter,
    bom: options.bom,
    header: true,
    columns: [...header],
    record_delimiter: CSV_RECORD_DELIMITER,
    quote_record_delimiter: true,
    quote: '"',
    escape: '"',
    quoted: false,
    quoted_empty: false,
    quoted_string: false,
    escape_formulas: false,
    eof: true,
  };
}
