// The report's bytes in a local file, for the DuckDB line: the same request the export sends (the
// window filter, `order=id.asc`), downloaded once per bench run before any line is measured, so
// DuckDB reads what the export reads and its figures carry no HTTP.

import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { loadWfmConfig } from '../src/config/wfm-config.js';
import { REPORT_PATH } from 'wfm-contract/finished-shift';
import { upstreamWindow, type Period } from '../src/domain/period.js';
import { parseContentRange } from '../src/wfm/content-range.js';
import { reportQuery, windowQuery, withQuery } from '../src/wfm/wfm-query.js';

export interface ReportFile {
  readonly path: string;
  /** Rows in the report, from its Content-Range total. */
  readonly rows: number;
}

export async function downloadReport(
  baseUrl: string,
  token: string,
  period: Period,
  path: string,
): Promise<ReportFile> {
  const config = loadWfmConfig({});
  const query = reportQuery(windowQuery(config.windowQuery, upstreamWindow(period)), {});
  const response = await request(`${baseUrl}${withQuery(REPORT_PATH, query)}`, {
    headers: { authorization: `Bearer ${token}`, prefer: 'count=exact', 'accept-encoding': 'identity' },
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`report download: HTTP ${response.statusCode}`);
  }
  const range = response.headers['content-range'];
  const rows = parseContentRange(typeof range === 'string' ? range : undefined)?.total;
  await pipeline(response.body, createWriteStream(path));
  if (rows === undefined) throw new Error('report download: no Content-Range total');
  return { path, rows };
}
