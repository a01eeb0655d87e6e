// Reads an export back (shifts.csv and rejected.csv, with an independent CSV parser) and counts
// what the table reports: rows exported, expected rows found in neither file (lost), and rows that
// appear more than once in shifts.csv or in both files (duplicates).

import { createReadStream, existsSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse';

/** The `shift_id` column of a CSV file written by the exporter (UTF-8 BOM, header row). */
export async function readShiftIds(path: string): Promise<number[]> {
  const parser = createReadStream(path).pipe(parse({ bom: true, columns: true, relax_column_count: false }));
  const ids: number[] = [];
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    const id = record['shift_id'];
    if (id !== undefined && id !== '') ids.push(Number(id));
  }
  return ids;
}

export interface RowCheck {
  readonly exported: number;
  readonly rejected: number;
  readonly lost: number;
  readonly duplicates: number;
}

export function checkRows(
  expected: ReadonlySet<number>,
  shiftIds: readonly number[],
  rejectedIds: readonly number[],
): RowCheck {
  const exported = new Set(shiftIds);
  const rejected = new Set(rejectedIds);
  let lost = 0;
  for (const id of expected) if (!exported.has(id) && !rejected.has(id)) lost++;
  let overlap = 0;
  for (const id of exported) if (rejected.has(id)) overlap++;
  return {
    exported: shiftIds.length,
    rejected: rejectedIds.length,
    lost,
    duplicates: shiftIds.length - exported.size + overlap,
  };
}

/** The published folder of a local export of from..to, or undefined when none was published. */
export function publishedFolder(dest: string, from: string, to: string): string | undefined {
  const link = join(dest, `${from}_${to}`);
  return existsSync(link) ? realpathSync(link) : undefined;
}

/** Reads the published local export of from..to and checks it against `expected`. */
export async function checkLocalExport(
  dest: string,
  from: string,
  to: string,
  expected: ReadonlySet<number>,
): Promise<RowCheck> {
  const folder = publishedFolder(dest, from, to);
  if (folder === undefined)
    throw new Error(`no export of ${from}..${to} in ${dest}: ${readdirSync(dest).join(', ')}`);
  const [shifts, rejected] = await Promise.all([
    readShiftIds(join(folder, 'shifts.csv')),
    readShiftIds(join(folder, 'rejected.csv')),
  ]);
  return checkRows(expected, shifts, rejected);
}
