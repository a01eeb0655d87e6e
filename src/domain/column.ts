// A column declared once (name, header, kind, meaning, value) and read by every renderer: CSV and
// XLSX can never drift apart. The kind says what the value is; each renderer decides how to show it.

export type ColumnKind =
  /** Text from the data: CSV guards formula prefixes, XLSX writes a text cell. */
  | 'text'
  /** Whole number. */
  | 'integer'
  /** Number already rounded to `places` decimals (CSV prints exactly that many). */
  | 'decimal'
  /** A ratio in 0..1 already rounded to `places` decimals; XLSX shows it as a percentage. */
  | 'rate'
  /** A float as the source sent it (coordinates). */
  | 'number'
  | 'boolean'
  /** Day number (days since 1970-01-01): CSV `YYYY-MM-DD`, XLSX a date cell. */
  | 'date'
  /** Wall-clock epoch seconds: CSV `YYYY-MM-DD HH:MM:SS`, XLSX a date-time cell. */
  | 'localDateTime'
  /** UTC epoch seconds: CSV `YYYY-MM-DDTHH:MM:SSZ`, XLSX a date-time cell. */
  | 'utcDateTime'
  /** Offset in minutes: `+HH:MM` in both. */
  | 'offset'
  /** Seconds: CSV the integer, XLSX a duration formatted [h]:mm. */
  | 'duration';

export type CellValue = string | number | boolean | null;

export interface Column<R> {
  /** The CSV header and the contract name (e.g. `start_local`). */
  readonly name: string;
  /** The human header of the workbook (e.g. "Start (local)"). */
  readonly header: string;
  readonly kind: ColumnKind;
  /** Decimals of `decimal` and `rate` columns. */
  readonly places?: number;
  /** Typical width in characters, a hint for the workbook. */
  readonly width: number;
  /** Long free text: the workbook wraps it inside the column. */
  readonly wrap?: boolean;
  /** What the column means, for the workbook's About sheet (docs/analysts.md lists the same). */
  readonly description: string;
  readonly value: (row: R) => CellValue;
}
