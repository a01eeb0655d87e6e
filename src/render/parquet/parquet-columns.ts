// The one mapping from a column's kind to a Parquet column: its schema element (physical type plus
// logical type, and the legacy converted type where it means the same) and how a cell value becomes
// the value hyparquet-writer stores. Every column is OPTIONAL: null is a null, never a zero or "".
//
// Per kind:
//   text           BYTE_ARRAY STRING (UTF-8), the text itself: no formula guard, a warehouse
//                  evaluates nothing
//   integer        INT64: ids, and distances; safe integers only, which the pipeline guarantees
//                  (an id past 2^53 is rejected upstream), so a number converts exactly
//   duration       INT32 seconds
//   offset         INT32 minutes
//   number         DOUBLE, the float as sent (coordinates)
//   decimal, rate  DECIMAL(18, places) on INT64: the value is already rounded to `places`, so
//                  the unscaled integer is exact
//   boolean        BOOLEAN
//   date           DATE (INT32 days since 1970-01-01), the day number as it is
//   localDateTime  TIMESTAMP(MICROS) not adjusted to UTC: a wall-clock time without a zone. No
//                  converted type, because TIMESTAMP_MICROS would tell old readers it is UTC
//   utcDateTime    TIMESTAMP(MICROS) adjusted to UTC, converted type TIMESTAMP_MICROS too
// A value of the wrong type for its kind, or an integer past its physical type (a duration of more
// than 68 years), throws CellValueError rather than writing something else.

import type { SchemaElement } from 'hyparquet-writer';
import type { CellValue, Column, ColumnKind } from '../../domain/column.js';
import { CellValueError } from '../cell-text.js';

/** What a stored value may be: hyparquet-writer takes bigint for INT64 columns. */
export type ParquetValue = string | number | bigint | boolean | null;

export type ParquetConverter = (value: CellValue) => ParquetValue;

export interface ParquetColumn {
  readonly element: SchemaElement;
  readonly convert: ParquetConverter;
}

/** What a Parquet column needs to know about a declared column. Every Column<R> is one. */
export type ParquetFormat = Pick<Column<never>, 'name' | 'kind' | 'places'>;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const MICROS_PER_SECOND = 1_000_000n;
const DECIMAL_PRECISION = 18;

function mismatch(format: ParquetFormat, value: CellValue, expected: string): CellValueError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
  return new CellValueError(
    `column "${format.name}" (${format.kind}) expects ${expected} for Parquet, got ${typeof value} ${shown}`,
    { column: format.name, kind: format.kind },
  );
}

function safeInteger(format: ParquetFormat, convert: (n: number) => ParquetValue): ParquetConverter {
  return (value) => {
    if (value === null) return null;
    if (typeof value !== 'number' || !Number.isSafeInteger(value))
      throw mismatch(format, value, 'an integer');
    return convert(value);
  };
}

function int32(format: ParquetFormat): ParquetConverter {
  return safeInteger(format, (n) => {
    if (n < INT32_MIN || n > INT32_MAX) throw mismatch(format, n, 'an integer that fits INT32');
    return n;
  });
}

/** The Parquet column of one declared column: call it once per column, then `convert` once per cell. */
export function parquetColumn(format: ParquetFormat): ParquetColumn {
  const name = format.name;
  const kind: ColumnKind = format.kind;
  const optional = { name, repetition_type: 'OPTIONAL' } as const;
  switch (kind) {
    case 'text':
      return {
        element: {
          ...optional,
          type: 'BYTE_ARRAY',
          converted_type: 'UTF8',
          logical_type: { type: 'STRING' },
        },
        convert: (value) => {
          if (value === null || typeof value === 'string') return value;
          throw mismatch(format, value, 'a string');
        },
      };
    case 'integer':
      return {
        element: { ...optional, type: 'INT64', converted_type: 'INT_64' },
        convert: safeInteger(format, BigInt),
      };
    case 'duration':
    case 'offset':
      return { element: { ...optional, type: 'INT32', converted_type: 'INT_32' }, convert: int32(format) };
    case 'number':
      return {
        element: { ...optional, type: 'DOUBLE' },
        convert: (value) => {
          if (value === null) return null;
          if (typeof value !== 'number' || !Number.isFinite(value))
            throw mismatch(format, value, 'a finite number');
          return value;
        },
      };
    case 'decimal':
    case 'rate': {
      const places = format.places;
      if (places === undefined || !Number.isInteger(places) || places < 0 || places > 9) {
        throw new CellValueError(`column "${name}" (${kind}) declares no valid number of decimals`, {
          column: name,
          kind,
        });
      }
      const factor = 10 ** places;
      return {
        element: {
          ...optional,
          type: 'INT64',
          converted_type: 'DECIMAL',
          scale: places,
          precision: DECIMAL_PRECISION,
          logical_type: { type: 'DECIMAL', scale: places, precision: DECIMAL_PRECISION },
        },
        convert: (value) => {
          if (value === null) return null;
          const unscaled = typeof value === 'number' ? Math.round(value * factor) : Number.NaN;
          if (!Number.isSafeInteger(unscaled))
            throw mismatch(format, value, `a number with ${places} decimals`);
          return BigInt(unscaled);
        },
      };
    }
    case 'boolean':
      return {
        element: { ...optional, type: 'BOOLEAN' },
        convert: (value) => {
          if (value === null || typeof value === 'boolean') return value;
          throw mismatch(format, value, 'a boolean');
        },
      };
    case 'date':
      return {
        element: { ...optional, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
        convert: int32(format),
      };
    case 'localDateTime':
      return {
        element: {
          ...optional,
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' },
        },
        convert: safeInteger(format, (seconds) => BigInt(seconds) * MICROS_PER_SECOND),
      };
    case 'utcDateTime':
      return {
        element: {
          ...optional,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MICROS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
        },
        convert: safeInteger(format, (seconds) => BigInt(seconds) * MICROS_PER_SECOND),
      };
  }
}
