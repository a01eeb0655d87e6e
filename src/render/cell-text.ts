// The one mapping from a column's kind to the text of a cell. The CSV writer prints exactly this
// text; the XLSX writer's tests and the LibreOffice check compare what a workbook shows with it, so
// the two formats cannot drift. Formatting is exact and never reads the machine's time zone.
//
// Per kind (null is always the empty cell):
//   text           the value; in CSV with the formula guard (see formula-guard.ts)
//   integer        the integer, e.g. `-12`
//   number         the shortest text that reads back as the same float (JavaScript's String(n)),
//                  written out without an exponent (1e-7 -> 0.0000001): realistic coordinates never
//                  have one, but an out-of-range value must not turn into `1e+300` in a spreadsheet
//   decimal, rate  exactly `places` decimals via toFixed (values come already rounded)
//   (number, decimal and rate use the `decimalSeparator` option: `.` by default, `,` for CSV
//   files meant for locales that read a decimal comma)
//   boolean        `true` / `false`
//   date           day number -> `YYYY-MM-DD`
//   localDateTime  epoch seconds -> `YYYY-MM-DD HH:MM:SS`
//   utcDateTime    epoch seconds -> `YYYY-MM-DDTHH:MM:SSZ`
//   offset         minutes -> `+HH:MM` / `-HH:MM`
//   duration       the integer seconds
// A value of the wrong type for its kind is a programming error and throws CellValueError rather
// than printing something an analyst might believe.

import { formatDateTime, formatDay, formatOffset, formatUtc } from 'wfm-contract/civil-time';
import type { CellValue, Column, ColumnKind } from '../domain/column.js';
import { ShiftExportError } from '../errors.js';
import { guardFormula } from './formula-guard.js';

/** What a formatter needs to know about a column. Every Column<R> is one. */
export type CellFormat = Pick<Column<never>, 'name' | 'kind' | 'places'>;

export type CellFormatter = (value: CellValue) => string;

/** The decimal separators we write: the one declaration (config/export-config.ts is held to it by the types). */
export type DecimalSeparator = '.' | ',';

export interface CellTextOptions {
  /** Prefix `'` to text cells that start like a formula (CSV only: XLSX text cells are inert). */
  readonly guardFormulas: boolean;
  /** Between the integer part and the fraction of number, decimal and rate cells; default `.`. */
  readonly decimalSeparator?: DecimalSeparator;
}

/** A cell value that does not fit its column's kind, or a column declared without what it needs. */
export class CellValueError extends ShiftExportError {
  constructor(message: string, details: Record<string, unknown>) {
    super('RENDER_CELL_INVALID', message, { details });
  }
}

function describeValue(value: CellValue): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : `${typeof value} ${String(value)}`;
}

function mismatch(format: CellFormat, value: CellValue, expected: string): CellValueError {
  return new CellValueError(
    `column "${format.name}" (${format.kind}) expects ${expected}, got ${describeValue(value)}`,
    { column: format.name, kind: format.kind },
  );
}

/** JavaScript's shortest round-trip text of a finite number, with any exponent written out. */
export function plainNumber(n: number): string {
  const text = String(n);
  return text.includes('e') ? expandExponent(text) : text;
}

function expandExponent(text: string): string {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const sign = m[1] ?? '';
  const digits = (m[2] ?? '') + (m[3] ?? '');
  // The decimal point sits after `point` digits of the mantissa.
  const point = Number(m[4]) + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

// toFixed switches to exponent notation from 1e21 on.
const TO_FIXED_LIMIT = 1e21;

/** Formatter kinds over a whole-number input (all but the text, boolean and float kinds). */
function wholeNumberFormatter(format: CellFormat, print: (n: number) => string): CellFormatter {
  return (value) => {
    if (value === null) return '';
    if (typeof value !== 'number' || !Number.isSafeInteger(value))
      throw mismatch(format, value, 'an integer');
    return print(value);
  };
}

/** The formatter of one column: call it once per column, then once per cell. */
export function cellFormatter(format: CellFormat, options: CellTextOptions): CellFormatter {
  const withPoint = formatterWithPoint(format, options);
  if ((options.decimalSeparator ?? '.') === '.' || !FRACTIONAL_KINDS.has(format.kind)) return withPoint;
  // The texts of these kinds hold at most one `.`, and only as the decimal point.
  return (value) => withPoint(value).replace('.', ',');
}

/** The kinds whose text may have a fraction, and so a decimal separator. */
const FRACTIONAL_KINDS: ReadonlySet<ColumnKind> = new Set(['number', 'decimal', 'rate']);

function formatterWithPoint(format: CellFormat, options: CellTextOptions): CellFormatter {
  const kind: ColumnKind = format.kind;
  switch (kind) {
    case 'text': {
      const guard = options.guardFormulas;
      return (value) => {
        if (value === null) return '';
        if (typeof value !== 'string') throw mismatch(format, value, 'a string');
        return guard ? guardFormula(value) : value;
      };
    }
    case 'integer':
    case 'duration':
      return wholeNumberFormatter(format, String);
    case 'date':
      return wholeNumberFormatter(format, formatDay);
    case 'localDateTime':
      return wholeNumberFormatter(format, formatDateTime);
    case 'utcDateTime':
      return wholeNumberFormatter(format, formatUtc);
    case 'offset':
      return wholeNumberFormatter(format, formatOffset);
    case 'number':
      return (value) => {
        if (value === null) return '';
        if (typeof value !== 'number' || !Number.isFinite(value))
          throw mismatch(format, value, 'a finite number');
        return plainNumber(value);
      };
    case 'decimal':
    case 'rate': {
      const places = format.places;
      if (places === undefined || !Number.isInteger(places) || places < 0 || places > 20) {
        throw new CellValueError(`column "${format.name}" (${kind}) declares no valid number of decimals`, {
          column: format.name,
          kind,
        });
      }
      return (value) => {
        if (value === null) return '';
        if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) >= TO_FIXED_LIMIT) {
          throw mismatch(format, value, 'a finite number below 1e21');
        }
        return value.toFixed(places);
      };
    }
    case 'boolean':
      return (value) => {
        if (value === null) return '';
        if (typeof value !== 'boolean') throw mismatch(format, value, 'a boolean');
        return value ? 'true' : 'false';
      };
  }
}

/**
 * False for the kinds whose text holds only digits, letters, `+ - . :` and spaces — never a CSV
 * delimiter, quote or line break — so the CSV writer can skip the quoting check for them.
 */
export function kindTextMayNeedQuotes(kind: ColumnKind): boolean {
  return kind === 'text';
}
