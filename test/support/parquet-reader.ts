// Reads a Parquet file back with DuckDB, an independent reader, and compares it with a CSV of the same
// columns: the SQL type DuckDB gives each column must be the one its kind promises, and every cell,
// formatted by DuckDB into the CSV's notation (coordinates compared as numbers), must equal the
// CSV's field. Text is compared with the CSV's formula guard taken off: Parquet stores text as it is.

import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import type { Column, ColumnKind } from '../../src/domain/column.js';
import { startsLikeFormula } from '../../src/render/formula-guard.js';

/** The SQL type DuckDB reports for each kind (DECIMAL with the column's places). */
export const DUCKDB_TYPE_OF_KIND: Readonly<Record<ColumnKind, (places?: number) => string>> = {
  text: () => 'VARCHAR',
  integer: () => 'BIGINT',
  duration: () => 'INTEGER',
  offset: () => 'INTEGER',
  number: () => 'DOUBLE',
  decimal: (places) => `DECIMAL(18,${places})`,
  rate: (places) => `DECIMAL(18,${places})`,
  boolean: () => 'BOOLEAN',
  date: () => 'DATE',
  localDateTime: () => 'TIMESTAMP',
  utcDateTime: () => 'TIMESTAMP WITH TIME ZONE',
};

/** DuckDB's text of a column in the CSV's notation (cell-text.ts), computed by DuckDB itself. */
function asCsvText(name: string, kind: ColumnKind): string {
  const c = `"${name}"`;
  switch (kind) {
    case 'text':
    case 'number':
      return c;
    case 'localDateTime':
      return `strftime(${c}, '%Y-%m-%d %H:%M:%S')`;
    case 'utcDateTime':
      return `strftime(${c}, '%Y-%m-%dT%H:%M:%SZ')`;
    case 'offset':
      return `CASE WHEN ${c} IS NULL THEN NULL ELSE printf('%s%02d:%02d', CASE WHEN ${c} < 0 THEN '-' ELSE '+' END, abs(${c}) // 60, abs(${c}) % 60) END`;
    default:
      return `CAST(${c} AS VARCHAR)`;
  }
}

export interface ParquetReadBack {
  /** Column name -> the SQL type DuckDB reads it as. */
  readonly types: Record<string, string>;
  /** Each cell in the CSV's notation, except DOUBLE cells, which stay numbers, and nulls. */
  readonly rows: (string | number | null)[][];
  readonly rowGroups: number;
  /** The file's `created_by`. */
  readonly createdBy: string;
}

export async function readParquet<R>(path: string, columns: readonly Column<R>[]): Promise<ParquetReadBack> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`SET TimeZone = 'UTC'`);
    const file = `'${path.replaceAll("'", "''")}'`;
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${file})`);
    const types = Object.fromEntries(described.getRowsJS().map((r) => [String(r[0]), String(r[1])]));
    const select = columns.map((c) => asCsvText(c.name, c.kind)).join(', ');
    const result = await connection.runAndReadAll(
      `SELECT ${select} FROM read_parquet(${file}, file_row_number = true) ORDER BY file_row_number`,
    );
    const rows = result
      .getRowsJS()
      .map((row) => row.map((cell) => (cell === null || typeof cell === 'number' ? cell : String(cell))));
    const groups = await connection.runAndReadAll(
      `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${file})`,
    );
    const meta = await connection.runAndReadAll(`SELECT created_by FROM parquet_file_metadata(${file})`);
    return {
      types,
      rows,
      rowGroups: Number(groups.getRowsJS()[0]?.[0]),
      createdBy: String(meta.getRowsJS()[0]?.[0]),
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The records of a CSV (header dropped), text fields with the formula guard taken off. */
export function csvRecordsUnguarded<R>(
  csv: string,
  columns: readonly Column<R>[],
  delimiter = ',',
): string[][] {
  const records = parse(csv, { bom: true, delimiter }) as string[][];
  return records
    .slice(1)
    .map((record) =>
      record.map((field, i) =>
        columns[i]?.kind === 'text' && field.startsWith("'") && startsLikeFormula(field.slice(1))
          ? field.slice(1)
          : field,
      ),
    );
}

/** The differences between a Parquet read-back and CSV records, as `row r, column: parquet ≠ csv` lines. */
export function differences<R>(
  parquet: ParquetReadBack,
  csv: readonly string[][],
  columns: readonly Column<R>[],
): string[] {
  const found: string[] = [];
  const names = columns.map((c) => c.name).join(',');
  if (Object.keys(parquet.types).join(',') !== names)
    found.push(`columns: ${Object.keys(parquet.types).join(',')}`);
  columns.forEach((column) => {
    const expected = DUCKDB_TYPE_OF_KIND[column.kind](column.places);
    if (parquet.types[column.name] !== expected)
      found.push(`${column.name}: type ${parquet.types[column.name]}, expected ${expected}`);
  });
  if (parquet.rows.length !== csv.length) found.push(`rows: ${parquet.rows.length} ≠ ${csv.length}`);
  csv.forEach((record, r) => {
    columns.forEach((column, i) => {
      // The CSV writes null as an empty field.
      const cell = parquet.rows[r]?.[i] ?? '';
      const field = record[i] ?? '';
      const same = typeof cell === 'number' ? field !== '' && Number(field) === cell : cell === field;
      if (!same && found.length < 20)
        found.push(`row ${r + 1}, ${column.name}: ${JSON.stringify(cell)} ≠ ${JSON.stringify(field)}`);
    });
  });
  return found;
}
