// The peer the bench holds the export against: DuckDB (`@duckdb/node-api`, a devDependency) turns
// the same report bytes, read from a local file, into a CSV with local times in one statement. It
// does what makes the export's CSV an export of the period: business date from the start's offset,
// rows outside the period dropped, local times and offsets formatted, UTC kept; it does not
// validate rows, flag anomalies, guard formulas or aggregate, so it is a lower bound of the work.

import { DuckDBInstance } from '@duckdb/node-api';
import type { Period } from '../src/domain/period.js';

export interface DuckdbCsvExport {
  readonly reportFile: string;
  readonly csvFile: string;
  readonly period: Period;
  readonly threads: number;
}

const COLUMNS = {
  id: 'BIGINT',
  user_id: 'BIGINT',
  user_login: 'VARCHAR',
  user_org_level: 'VARCHAR',
  user_position: 'VARCHAR',
  user_display_name: 'VARCHAR',
  division_id: 'BIGINT',
  division_name: 'VARCHAR',
  region_id: 'BIGINT',
  region_name: 'VARCHAR',
  shop_id: 'BIGINT',
  shop_sap: 'VARCHAR',
  shop_locality: 'VARCHAR',
  shop_address: 'VARCHAR',
  start_time: 'TIMESTAMP',
  start_time_offset: 'INTEGER',
  finish_time: 'TIMESTAMP',
  finish_time_offset: 'INTEGER',
  duration: 'BIGINT',
  comment: 'VARCHAR',
  start_location_lat: 'DOUBLE',
  start_location_lon: 'DOUBLE',
  start_location_distance: 'BIGINT',
  start_location_match: 'BOOLEAN',
  finish_location_lat: 'DOUBLE',
  finish_location_lon: 'DOUBLE',
  finish_location_distance: 'BIGINT',
  finish_location_match: 'BOOLEAN',
  auto_finished: 'BOOLEAN',
};

const text = (value: string): string => `'${value.replaceAll("'", "''")}'`;
const offset = (column: string): string =>
  `printf('%s%02d:%02d', CASE WHEN ${column} < 0 THEN '-' ELSE '+' END, abs(${column}) // 60, abs(${column}) % 60)`;

/** The statement, exported so a test can read what it does. */
export function duckdbCsvStatement(job: Omit<DuckdbCsvExport, 'threads'>): string {
  const columns = `{${Object.entries(COLUMNS)
    .map(([name, type]) => `${name}: ${text(type)}`)
    .join(', ')}}`;
  return `COPY (
  WITH report AS (
    SELECT *,
      start_time + to_minutes(start_time_offset) AS start_local_time,
      finish_time + to_minutes(finish_time_offset) AS finish_local_time
    FROM read_json(${text(job.reportFile)}, format = 'array', columns = ${columns})
  )
  SELECT id AS shift_id, CAST(start_local_time AS DATE) AS business_date,
    user_id, user_login, user_display_name, user_position, user_org_level,
    division_id, division_name, region_id, region_name,
    shop_id, shop_sap, shop_locality, shop_address,
    strftime(start_local_time, '%Y-%m-%d %H:%M:%S') AS start_local,
    ${offset('start_time_offset')} AS start_utc_offset,
    strftime(finish_local_time, '%Y-%m-%d %H:%M:%S') AS finish_local,
    ${offset('finish_time_offset')} AS finish_utc_offset,
    strftime(start_time, '%Y-%m-%dT%H:%M:%SZ') AS start_utc,
    strftime(finish_time, '%Y-%m-%dT%H:%M:%SZ') AS finish_utc,
    duration AS duration_seconds, round(duration / 3600, 2) AS duration_hours,
    start_location_lat, start_location_lon, start_location_distance, start_location_match,
    finish_location_lat, finish_location_lon, finish_location_distance, finish_location_match,
    auto_finished, comment
  FROM report
  WHERE CAST(start_local_time AS DATE) BETWEEN DATE ${text(job.period.from)} AND DATE ${text(job.period.to)}
) TO ${text(job.csvFile)} (FORMAT csv, HEADER true)`;
}

/** Runs the export; returns the rows written to the CSV. */
export async function duckdbCsvExport(job: DuckdbCsvExport): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(job.threads) });
  const connection = await instance.connect();
  try {
    const result = await connection.run(duckdbCsvStatement(job));
    return Number(result.rowsChanged);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
