// What JSON.parse hides, end to end: `shift-export run` as a child process against the sandbox over
// HTTP, whose invalid rows carry ids past 2^53, ids with a fraction that JSON.parse rounds away,
// user ids past 2^53 and comments that are not UTF-8. The body the sandbox sends is read over HTTP
// too and split by a byte walk of its own (test/support/json-array-elements.ts): every rejected
// row must be byte for byte one of its rows, and no id may reach the export rounded.

import { isUtf8 } from 'node:buffer';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { cliEnv, runCli } from '../support/cli.js';
import { jsonArrayElements } from '../support/json-array-elements.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from '../support/sandbox.js';

// The sandbox's 7 days end on 2024-03-31; the period covers them with a day to spare each side.
const PERIOD = { from: '2024-03-24', to: '2024-04-01' };
const TWO_TO_53 = 2n ** 53n;
const VARIANTS = [
  'id past 2^53',
  'user_id past 2^53',
  'id with a fraction JSON.parse rounds away, missing start_time',
  'comment not UTF-8',
  'comment not UTF-8, missing start_time',
];

type Record = { readonly [column: string]: string };

let sandbox: RunningSandbox;
/** The rows as the sandbox sent them. */
let sent: Buffer[];
let shifts: Record[];
let rejected: Record[];
let dest: string | undefined;

function readCsv(path: string): Record[] {
  return parse(readFileSync(path), { bom: true, columns: true }) as Record[];
}

/** The number written for `field` at the start of a sent row's text. */
function numberOf(row: Buffer, field: string): string | undefined {
  return new RegExp(`"${field}":(-?[0-9.eE+-]+)`).exec(row.toString('latin1'))?.[1];
}

beforeAll(async () => {
  sandbox = await startTestSandbox({
    rows: 3000,
    days: 7,
    faults: { wfm_timers: { invalidRowRate: 0.3, invalidRowVariants: VARIANTS } },
  });
  const res = await request(`${sandbox.url}/v1/connector/rpc/wfm_timers?order=id.asc`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  sent = jsonArrayElements(Buffer.from(await res.body.arrayBuffer()));
  dest = mkdtempSync(join(tmpdir(), 'raw-json-e2e-'));
  const run = await runCli(
    ['run', '--from', PERIOD.from, '--to', PERIOD.to, '--dest', dest, '--format', 'csv'],
    cliEnv({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_ADMIN_TOKEN, WFM_RETRY_BASE_DELAY_MS: '10' }),
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const folder = realpathSync(join(dest, `${PERIOD.from}_${PERIOD.to}`));
  shifts = readCsv(join(folder, 'shifts.csv'));
  rejected = readCsv(join(folder, 'rejected.csv'));
});

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

describe('rows JSON.parse would change, end to end', () => {
  it('keeps every rejected row as the bytes the sandbox sent', () => {
    const byText = new Map(sent.map((row) => [row.toString('utf8'), row]));
    expect(rejected.length).toBeGreaterThan(300);
    for (const row of rejected) {
      const source = byText.get(row['raw_json'] ?? '');
      expect(source, row['raw_json']).toBeDefined();
      if (source !== undefined && isUtf8(source)) expect(Buffer.from(row['raw_json'] ?? '')).toEqual(source);
    }
    expect(new Set(rejected.map((r) => r['raw_json'])).size).toBe(rejected.length);
  });

  it('rejects each id past 2^53 on its own, even those that are one double apart', () => {
    const huge = sent
      .map((row) => numberOf(row, 'id') ?? '')
      .filter((id) => /^\d+$/.test(id) && BigInt(id) > TWO_TO_53);
    // Ids that JSON.parse reads as the same number: the rows an export used to make indistinguishable.
    const asDoubles = new Set(huge.map(Number));
    expect(asDoubles.size).toBeLessThan(huge.length);
    const reasons = rejected.map((r) =>
      /^id: (\d+) is past 2\^53 and cannot be kept exactly$/.exec(r['reason'] ?? ''),
    );
    expect(reasons.flatMap((m) => (m === null ? [] : [m[1]])).sort()).toEqual([...huge].sort());
    for (const row of rejected.filter((r, i) => reasons[i] !== null)) expect(row['shift_id']).toBe('');
  });

  it('rejects a user_id past 2^53 under the row’s own id, with the digits as sent', () => {
    const sentUsers = sent.filter((row) => BigInt(numberOf(row, 'user_id') ?? '0') > TWO_TO_53);
    expect(sentUsers.length).toBeGreaterThan(20);
    for (const row of sentUsers) {
      const id = numberOf(row, 'id');
      const match = rejected.find((r) => r['shift_id'] === id);
      expect(match?.['reason']).toBe(
        `user_id: ${numberOf(row, 'user_id')} is past 2^53 and cannot be kept exactly`,
      );
    }
  });

  it('never names an id that JSON.parse rounded from a fraction, and says why', () => {
    const fractional = sent.filter((row) => numberOf(row, 'id')?.includes('.'));
    expect(fractional.length).toBeGreaterThan(20);
    const byText = new Map(rejected.map((r) => [r['raw_json'], r]));
    for (const row of fractional) {
      const id = numberOf(row, 'id') ?? '';
      const match = byText.get(row.toString('utf8'));
      expect(match?.['shift_id']).toBe('');
      expect(match?.['reason']).toContain(
        `id: ${id} would be read as ${id.slice(0, id.indexOf('.'))} and cannot be kept exactly`,
      );
    }
  });

  it('exports a row whose comment is not UTF-8, flagged, with U+FFFD where the bytes were', () => {
    const notUtf8 = sent.filter((row) => !isUtf8(row) && row.includes('"start_time"'));
    expect(notUtf8.length).toBeGreaterThan(20);
    const byId = new Map(shifts.map((s) => [s['shift_id'], s]));
    for (const row of notUtf8) {
      const exported = byId.get(numberOf(row, 'id'));
      expect(exported?.['quality_flags']).toBe('invalid_utf8');
      expect(exported?.['comment']).toBe('before \uFFFD\uFFFD( after');
    }
    expect(shifts.filter((s) => s['quality_flags']?.includes('invalid_utf8'))).toHaveLength(notUtf8.length);
  });

  it('loses no row: every row sent is in shifts.csv or rejected.csv, once', () => {
    expect(shifts.length + rejected.length).toBe(sent.length);
  });
});
