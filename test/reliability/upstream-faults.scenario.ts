// Upstream faults during a report: `shift-export run` as a child process against the
// sandbox with one fault each. A transient fault must end in a complete export (every expected row
// in shifts.csv or rejected.csv, none twice); a permanent one in a one-line error and nothing
// written. Expected rows come from the sandbox's generator, filtered to the period in process.
// The client asks for gzip by default and the sandbox answers gzip, so every row is read through
// the decoder unless it says otherwise; slow bodies and bodies that are not the report are tried too.

import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { FaultPlan, RunningSandbox } from 'wfm-sandbox';
import { ID_OFFSET } from 'wfm-sandbox';
import { jsonArrayElements } from '../support/json-array-elements.js';
import { failedOutcome, publishedOutcome, runCliExport, type CliExport } from './support/cli-export.js';
import { checkRows, publishedFolder } from './support/exported-ids.js';
import { expectedIds } from './support/expected-rows.js';
import { WFM_SECRET_TOKEN } from './support/evidence.js';
import type { ScenarioOutcome } from './support/scenario.js';
import { scenario } from './support/scenario.js';
import { REPORT_ROWS, sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'upstream';
const FROM = '2024-03-26';
const TO = '2024-03-30';
const SHAPE = sourceShape(REPORT_ROWS);
const MB = 1024 * 1024;

let sandbox: RunningSandbox;
let expected: Set<number>;

beforeAll(async () => {
  sandbox = await startScenarioSandbox(SHAPE);
  expected = expectedIds(SHAPE, FROM, TO);
});

afterAll(async () => {
  await sandbox?.close();
});

function complete(name: string, faults: FaultPlan, env: Record<string, string> = {}): Promise<void> {
  return scenario(GROUP, name, async () => {
    sandbox.clearFaults();
    sandbox.setFaults(faults);
    const result = await runCliExport(`upstream-${name}`, { baseUrl: sandbox.url, from: FROM, to: TO, env });
    return publishedOutcome(result, FROM, TO, expected);
  });
}

function fails(
  name: string,
  faults: FaultPlan,
  codes: readonly string[],
  why: string | ((result: CliExport) => string),
  env: Record<string, string> = {},
): Promise<void> {
  return scenario(GROUP, name, async () => {
    sandbox.clearFaults();
    sandbox.setFaults(faults);
    const result = await runCliExport(`upstream-${name}`, { baseUrl: sandbox.url, from: FROM, to: TO, env });
    return failedOutcome(result, codes, expected.size, typeof why === 'string' ? why : why(result));
  });
}

/** A run that had to publish after retrying `code` at least once: says so, with the retry's reason. */
function recovers(
  name: string,
  faults: FaultPlan,
  code: string,
  env: Record<string, string> = {},
): Promise<void> {
  return scenario(GROUP, name, async () => {
    sandbox.clearFaults();
    sandbox.setFaults(faults);
    const result = await runCliExport(`upstream-${name}`, { baseUrl: sandbox.url, from: FROM, to: TO, env });
    const retries = logLines(result).filter((l) => l['msg'] === `retrying a WFM request after ${code}`);
    if (retries.length === 0) throw new Error(`expected a retry after ${code}; stderr: ${result.run.stderr}`);
    const limit = /WFM_READ_[A-Z_]+=\d+/.exec(String(retries[0]?.['reason']))?.[0];
    const why = limit === undefined ? '' : ` (${limit})`;
    return publishedOutcome(
      result,
      FROM,
      TO,
      expected,
      `published after ${retries.length} × ${code}${why} retried`,
    );
  });
}

/** The JSON log lines of a run (LOG_LEVEL=info). */
function logLines(result: CliExport): Record<string, unknown>[] {
  return result.run.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Bytes on the wire and decoded, from the run's "export published" log line. */
function upstreamBytes(result: CliExport): { wireBytes: number; decodedBytes: number } {
  const published = logLines(result).find((l) => l['msg'] === 'export published');
  const upstream = published?.['upstream'] as { wireBytes?: number; decodedBytes?: number } | undefined;
  if (upstream?.wireBytes === undefined || upstream.decodedBytes === undefined)
    throw new Error('the "export published" log line has no upstream byte counts');
  return { wireBytes: upstream.wireBytes, decodedBytes: upstream.decodedBytes };
}

function expectInLastLine(result: CliExport, text: string): void {
  const last = result.run.stderr.trim().split('\n').at(-1) ?? '';
  if (!last.includes(text)) throw new Error(`expected "${text}" in the last line: ${last}`);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** A published run whose outcome says how many bytes crossed the wire for how much JSON. */
function bytesOutcome(name: string, env: Record<string, string>, check: (ratio: number) => boolean) {
  return scenario(GROUP, name, async () => {
    sandbox.clearFaults();
    const result = await runCliExport(`upstream-${name}`, { baseUrl: sandbox.url, from: FROM, to: TO, env });
    const { wireBytes, decodedBytes } = upstreamBytes(result);
    const ratio = decodedBytes / wireBytes;
    if (!check(ratio)) throw new Error(`unexpected wire/decoded ratio ${ratio.toFixed(2)}`);
    const note = `published; ${megabytes(wireBytes)} on the wire for ${megabytes(decodedBytes)} of JSON (${ratio.toFixed(1)}×)`;
    return publishedOutcome(result, FROM, TO, expected, note);
  });
}

/** The invalid-row variants whose rows JSON.parse alone would change. */
const EXACTNESS_VARIANTS = [
  'id past 2^53',
  'user_id past 2^53',
  'id with a fraction JSON.parse rounds away, missing start_time',
  'comment not UTF-8',
  'comment not UTF-8, missing start_time',
];

/**
 * The export of rows JSON.parse would change, checked against the bytes the sandbox sent: every
 * rejected row's raw_json is one of the sent rows (byte for byte when it was UTF-8), and a row is
 * lost only when its id is in neither file (a rejected row without a usable id counts by the id it
 * was sent with: the sandbox's id plus ID_OFFSET, or its whole part).
 */
async function exactnessOutcome(result: CliExport): Promise<ScenarioOutcome> {
  if (result.run.code !== 0) throw new Error(`expected a published export, got exit ${result.run.code}`);
  const folder = publishedFolder(result.dest, FROM, TO) ?? '';
  const read = (name: string) =>
    parse(readFileSync(join(folder, name)), { bom: true, columns: true }) as Record<string, string>[];
  const shifts = read('shifts.csv');
  const rejected = read('rejected.csv');
  const res = await request(`${sandbox.url}/v1/connector/rpc/wfm_timers?order=id.asc`, {
    headers: { authorization: `Bearer ${WFM_SECRET_TOKEN}` },
  });
  // Only the rows of the variants are kept: the report holds tens of megabytes.
  const sent = new Map<string, Buffer>();
  for (const row of jsonArrayElements(Buffer.from(await res.body.arrayBuffer()))) {
    const id = /^\{"id":([0-9.]+),/.exec(row.toString('latin1'))?.[1] ?? '';
    if (!isUtf8(row) || id.includes('.') || id.length > 15 || /"user_id":\d{16}/.test(row.toString('latin1')))
      sent.set(row.toString('utf8'), row);
  }
  let inexact = 0;
  const rejectedIds = rejected.map((r) => {
    const raw = r['raw_json'] ?? '';
    const source = sent.get(raw);
    if (source === undefined || (isUtf8(source) && !Buffer.from(raw).equals(source))) inexact++;
    if (r['shift_id'] !== '') return Number(r['shift_id']);
    const written = /^\{"id":([0-9.]+),/.exec(raw)?.[1] ?? '';
    return written.includes('.')
      ? Number(written.slice(0, written.indexOf('.')))
      : Number(BigInt(written) - ID_OFFSET);
  });
  if (inexact > 0) throw new Error(`${inexact} rejected rows whose raw_json is not a row as sent`);
  const shiftIds = shifts.map((r) => Number(r['shift_id']));
  // What JSON.parse reads the ids it cannot keep as: none may appear as an exported or rejected id.
  const roundedAs = new Set<number>();
  for (const text of sent.keys()) {
    const id = /^\{"id":([0-9.]+),/.exec(text)?.[1] ?? '';
    if (id.includes('.') || id.length > 15) roundedAs.add(JSON.parse(id) as number);
  }
  const named = rejected.map((r) => r['shift_id']).filter((id) => id !== '');
  const rounded = [...shiftIds, ...named.map(Number)].filter((id) => roundedAs.has(id)).length;
  if (rounded > 0) throw new Error(`${rounded} ids exported as JSON.parse rounded them`);
  const flagged = shifts.filter((r) => r['quality_flags']?.includes('invalid_utf8')).length;
  const check = checkRows(expected, shiftIds, rejectedIds);
  return {
    outcome:
      `published; ${rejected.length.toLocaleString('en-US')} rejected, each raw_json as sent; ` +
      `${flagged.toLocaleString('en-US')} exported flagged invalid_utf8; 0 ids rounded`,
    expected: expected.size,
    exported: check.exported,
    lost: check.lost,
    duplicates: check.duplicates,
  };
}

describe('upstream faults during a report', () => {
  it('exports every row without faults (baseline)', () => complete('no fault (baseline)', {}));
  it('rides out a burst of 503s', () =>
    complete('burst of 3 × 503', { '*': { failNext: 3, errorStatus: 503 } }));
  it('rides out a burst of 500s on the report', () =>
    complete('burst of 4 × 500 on the report', { wfm_timers: { failNext: 4, errorStatus: 500 } }));
  it('waits out 429 with Retry-After', () =>
    complete('2 × 429 Retry-After: 1', { wfm_timers: { rateLimitNext: 2, retryAfter: '1' } }));
  it('restarts the read after a connection reset mid-body', () =>
    complete('connection reset mid-body', { wfm_timers: { resetAfterBytes: 5 * MB } }));
  it('restarts the read after a truncated JSON body', () =>
    complete('truncated JSON body', { wfm_timers: { truncateAfterBytes: 5 * MB } }));
  it('times out a stalled body and reads again', () =>
    complete(
      'body stalls past the timeout',
      { wfm_timers: { stallAfterBytes: 5 * MB } },
      { WFM_BODY_TIMEOUT_MS: '1500' },
    ));
  it('notices a row cap that silently truncates the report and reads on past it', () =>
    complete('row cap truncates (10,000), one request', { '*': { rowCap: 10_000 } }));
  it('pages through a row cap with keyset paging', () =>
    complete(
      'row cap 10,000 with keyset paging',
      { '*': { rowCap: 10_000 } },
      { WFM_PAGING: 'keyset', WFM_PAGE_SIZE: '25000' },
    ));
  it('stops on 401 without retrying', () =>
    fails('401 Unauthorized', { '*': { failNext: 50, errorStatus: 401 } }, ['WFM_AUTH'], 'permanent'));
  it('stops on 403 without retrying', () =>
    fails('403 Forbidden', { '*': { failNext: 50, errorStatus: 403 } }, ['WFM_AUTH'], 'permanent'));
  it('rejects 1% invalid rows into rejected.csv', () =>
    complete('invalid rows 1%', { wfm_timers: { invalidRowRate: 0.01 } }));
  it('rejects 50% invalid rows into rejected.csv', () =>
    complete('invalid rows 50%', { wfm_timers: { invalidRowRate: 0.5 } }));
  it('exports each duplicated row once', () =>
    complete('duplicated rows 2%', { wfm_timers: { duplicateRowRate: 0.02 } }));
  it('keeps rows JSON.parse would change exactly as sent, and rounds no id', () =>
    scenario(GROUP, 'ids past 2^53, rounded fractions, invalid UTF-8 (5%)', async () => {
      sandbox.clearFaults();
      sandbox.setFaults({ wfm_timers: { invalidRowRate: 0.05, invalidRowVariants: EXACTNESS_VARIANTS } });
      const result = await runCliExport('upstream-exactness', { baseUrl: sandbox.url, from: FROM, to: TO });
      return exactnessOutcome(result);
    }));
  it('rejects a report of only invalid rows', () =>
    complete('only invalid rows', { wfm_timers: { invalidRowRate: 1 } }));
  it('publishes an empty report as an empty export', () =>
    scenario(GROUP, 'empty report', async () => {
      sandbox.clearFaults();
      const result = await runCliExport('upstream-empty', {
        baseUrl: sandbox.url,
        from: '2024-01-10',
        to: '2024-01-12',
      });
      return publishedOutcome(result, '2024-01-10', '2024-01-12', new Set(), 'published, 0 rows');
    }));
  it('carries a 1 MB comment through', () =>
    scenario(GROUP, '1 MB comment on every 2,000th row', async () => {
      const shape = sourceShape(20_000, { longComment: { every: 2000, bytes: MB } });
      const long = await startScenarioSandbox(shape);
      try {
        const result = await runCliExport('upstream-long-comment', { baseUrl: long.url, from: FROM, to: TO });
        return await publishedOutcome(result, FROM, TO, expectedIds(shape, FROM, TO));
      } finally {
        await long.close();
      }
    }));
  it('reads a gzip body: far fewer bytes on the wire than decoded', () =>
    bytesOutcome('gzip (the default)', {}, (ratio) => ratio > 3));
  it('reads an identity body when compression is off', () =>
    bytesOutcome('identity (WFM_COMPRESSION=false)', { WFM_COMPRESSION: 'false' }, (ratio) => ratio === 1));
  it('fails a trickling attempt at the read deadline and reads again', () =>
    recovers(
      'body trickles at 2 KB a second, first attempt',
      { wfm_timers: { trickleBytesPerSecond: 2000 } },
      'WFM_TIMEOUT',
      { WFM_READ_DEADLINE_MS: '3000' },
    ));
  it('fails an attempt slower than the minimum rate and reads again', () =>
    recovers(
      'body at 1 KB a second, below WFM_READ_MIN_BYTES_PER_SEC=4096, first attempt',
      { wfm_timers: { trickleBytesPerSecond: 1000 } },
      'WFM_TIMEOUT',
      { WFM_READ_MIN_BYTES_PER_SEC: '4096', WFM_READ_RATE_WINDOW_MS: '2000' },
    ));
  it('gives up within a bounded time when the body trickles on every attempt', () => {
    const started = performance.now();
    return fails(
      'body trickles on every attempt',
      { wfm_timers: { trickleBytesPerSecond: 500, trickleNext: 1000 } },
      ['WFM_TIMEOUT'],
      (result) => {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        expectInLastLine(result, 'WFM_READ_DEADLINE_MS=2000');
        return `3 attempts × WFM_READ_DEADLINE_MS=2000, exit 1 after ${seconds} s, the line names the limit`;
      },
      { WFM_READ_DEADLINE_MS: '2000', WFM_RETRY_ATTEMPTS: '3' },
    );
  });
  it('retries an HTML page sent with status 200, then publishes', () =>
    recovers(
      'HTML page with status 200, first attempt',
      { wfm_timers: { wrongBody: 'html' } },
      'WFM_BODY_INVALID',
    ));
  it('stops on an encoding it cannot decode, saying what arrived', () =>
    fails(
      'unknown Content-Encoding (zstd)',
      { wfm_timers: { contentEncoding: 'zstd' } },
      ['WFM_BODY_INVALID'],
      (result) => {
        expectInLastLine(result, 'Content-Encoding "zstd" cannot be decoded');
        return 'transient: retried later; the line names the encoding and quotes the body';
      },
      { WFM_RETRY_ATTEMPTS: '2' },
    ));
  it('fails transiently when the division list fails while the report works', () =>
    fails(
      'division list fails, report works',
      { divisions: { failNext: 50, errorStatus: 503 } },
      ['WFM_HTTP_STATUS'],
      'transient: retried later',
      { WFM_RETRY_ATTEMPTS: '2' },
    ));
});
