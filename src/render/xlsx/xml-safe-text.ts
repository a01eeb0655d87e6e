// The gate every string passes before it is written into any XML part of the workbook: the data
// rows we render ourselves (row-xml.ts), and everything handed to exceljs — header rows, sheet
// names, the About sheet, the workbook's title and creator. The pipeline has already applied the
// same rule to the export's upstream text; this gate also covers what bypasses the pipeline (the
// raw JSON of rejected rows, error reasons, the About sheet's source URL), so no text, whatever its
// origin, can make a part that is not well-formed XML. The rule is spreadsheet-safe-text.ts's: each
// character XML 1.0 does not allow (and DEL, which exceljs would drop) becomes U+FFFD. Plain
// strings (sheet names, title, creator, row text) call spreadsheetSafeText directly; the result is
// still to be escaped (`<`, `&`… are the writer's job).

import { spreadsheetSafeText } from '../../domain/spreadsheet-safe-text.js';
import type { XlsxValue } from './xlsx-cells.js';

/** A cell value as an XML part can hold it: its text made safe, other kinds unchanged. */
export function xmlSafeValue(value: XlsxValue | Date): XlsxValue | Date {
  if (typeof value === 'string') return spreadsheetSafeText(value);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const [run] = value.richText;
    const text = spreadsheetSafeText(run.text);
    return text === run.text ? value : { richText: [{ text }] };
  }
  return value;
}
