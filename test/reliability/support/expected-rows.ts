// What an export of a period must contain, computed without the code under test: the sandbox's
// rows from its in-process generator (createSandboxReport: the same rows as over HTTP), kept when the
// local date of the start (UTC start + offset, by plain Date arithmetic) lies in the period.

import { createSandboxReport, type SandboxReport } from 'wfm-sandbox';

export interface SourceShape {
  readonly seed: number;
  readonly rows: number;
  readonly endDate: string;
  readonly days: number;
  readonly longComment?: { readonly every: number; readonly bytes: number };
}

export function localStartDate(startTime: string, offsetMinutes: number): string {
  const utcMs = Date.parse(`${startTime.slice(0, 19)}Z`);
  return new Date(utcMs + offsetMinutes * 60_000).toISOString().slice(0, 10);
}

export function expectedIds(shape: SourceShape, from: string, to: string): Set<number> {
  const source: SandboxReport = createSandboxReport(shape);
  const ids = new Set<number>();
  for (const row of source) {
    const day = localStartDate(row.start_time, row.start_time_offset);
    if (day >= from && day <= to) ids.add(row.id);
  }
  return ids;
}
