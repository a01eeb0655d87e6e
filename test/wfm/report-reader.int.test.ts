// The report read against the sandbox's faults, over real HTTP: recovery without lost or repeated
// rows, typed errors when attempts run out, row-cap detection, paging modes.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectedWfmConfig } from '../../src/config/wfm-config.js';
import type { EnvName } from '../../src/config/config-groups.js';
import { finishedShiftSchema } from 'wfm-contract/finished-shift';
import { AbortedError } from '../../src/errors.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { systemClock, type RetryEvent } from '../../src/wfm/retry.js';
import { WfmClient, type ReadProgress, type WfmClientOptions } from '../../src/wfm/wfm-client.js';
import type { WfmError } from '../../src/wfm/wfm-error.js';
import { liveMemory } from '../support/live-memory.js';
import { startTestSandbox } from '../support/sandbox.js';
import { FakeClock } from './fake-clock.js';
import { chosenReportParser } from './report-parser-choice.js';
import { readAll, readUntilError, testWfmConfig } from './wfm-test-support.js';

let sandbox: RunningSandbox;
/** Every id of the report, from a clean single read. */
let allIds: number[];
const open: WfmClient[] = [];

/** The parser the file reads with (report-reader-lagging.int.test.ts chooses another). */
function parserOption(): WfmClientOptions {
  const parser = chosenReportParser();
  return parser === undefined ? {} : { reportParser: parser };
}

/** A client that yields rows every ~16 KiB, so a body that breaks midway has handed rows out. */
function clientWith(env: Partial<Record<EnvName, string>> = {}, options: WfmClientOptions = {}): WfmClient {
  const client = new WfmClient(testWfmConfig(sandbox.url, env), {
    reportBatchBytes: 16 * 1024,
    ...parserOption(),
    ...options,
  });
  open.push(client);
  return client;
}

function clientFrom(config: ConnectedWfmConfig, options: WfmClientOptions = {}): WfmClient {
  const client = new WfmClient(config, { reportBatchBytes: 16 * 1024, ...parserOption(), ...options });
  open.push(client);
  return client;
}

/** A client that records retries and sleeps on a fake clock (Retry-After without waiting). */
function recordingClient(env: Partial<Record<EnvName, string>> = {}): {
  client: WfmClient;
  retries: RetryEvent[];
  clock: FakeClock;
} {
  const retries: RetryEvent[] = [];
  const clock = new FakeClock();
  return { client: clientWith(env, { clock, onRetry: (e) => retries.push(e) }), retries, clock };
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 3000 });
  allIds = (await readAll(clientWith())).ids;
  expect(allIds).toHaveLength(3000);
});

afterEach(() => sandbox.clearFaults());

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await sandbox.close();
});

describe('recovering from an upstream that fails before the body', () => {
  it('recovers from a burst of 500s and 503s', async () => {
    const { client, retries } = recordingClient();
    sandbox.setFaults({ wfm_timers: { failNext: 2, errorStatus: 500 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    sandbox.setFaults({ wfm_timers: { failNext: 3, errorStatus: 503 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries.map((r) => r.error.status)).toEqual([500, 500, 503, 503, 503]);
  });

  it('fails with WFM_HTTP_STATUS once attempts run out', async () => {
    const { client } = recordingClient();
    sandbox.setFaults({ wfm_timers: { failNext: 10, errorStatus: 503 } });
    const before = sandbox.requestCount('wfm_timers');
    const { rows, error } = await readUntilError(client);
    expect(rows).toEqual([]);
    expect(error).toMatchObject({ code: 'WFM_HTTP_STATUS', status: 503, retryable: true, attempts: 4 });
    expect(sandbox.requestCount('wfm_timers') - before).toBe(4);
  });

  it('waits what a 429 Retry-After in seconds asks', async () => {
    const { client, clock } = recordingClient({ WFM_RETRY_MAX_DELAY_MS: '30000' });
    sandbox.setFaults({ wfm_timers: { rateLimitNext: 2, retryAfter: '2' } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(clock.sleeps).toEqual([2000, 2000]);
  });

  it('waits until a 429 Retry-After HTTP-date, capped by the maximum delay', async () => {
    const { client, clock, retries } = recordingClient({ WFM_RETRY_MAX_DELAY_MS: '5000' });
    clock.nowMs = Date.parse('2024-05-01T12:00:00Z');
    sandbox.setFaults({ wfm_timers: { rateLimitNext: 1, retryAfter: 'Wed, 01 May 2024 12:00:03 GMT' } });
    await readAll(client);
    sandbox.setFaults({ wfm_timers: { rateLimitNext: 1, retryAfter: 'Wed, 01 May 2024 13:00:00 GMT' } });
    await readAll(client);
    expect(clock.sleeps).toEqual([3000, 5000]);
    expect(retries.map((r) => [r.error.code, r.error.status])).toEqual([
      ['WFM_HTTP_STATUS', 429],
      ['WFM_HTTP_STATUS', 429],
    ]);
  });

  it('fails with a 429 when the rate limit outlasts the attempts', async () => {
    const { client } = recordingClient();
    sandbox.setFaults({ wfm_timers: { rateLimitNext: 4, retryAfter: '1' } });
    await expect(readAll(client)).rejects.toMatchObject({
      code: 'WFM_HTTP_STATUS',
      status: 429,
      attempts: 4,
    });
  });
});

describe('resuming a body that breaks midway', () => {
  it('resumes after a connection reset without losing or repeating a row', async () => {
    const { client, retries } = recordingClient();
    sandbox.setFaults({ wfm_timers: { resetAfterBytes: 700_000 } });
    const { ids } = await readAll(client);
    expect(ids).toEqual(allIds);
    expect(retries.map((r) => r.error.code)).toEqual(['WFM_NETWORK']);
  });

  it('resumes after a body that ends cleanly but early', async () => {
    const { client, retries } = recordingClient();
    sandbox.setFaults({ wfm_timers: { truncateAfterBytes: 1_000_000, truncateNext: 2 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries.map((r) => r.error.code)).toEqual(['WFM_BODY_TRUNCATED', 'WFM_BODY_TRUNCATED']);
  });

  it('resumes after a body that stalls past the body timeout', async () => {
    const { client, retries } = recordingClient({ WFM_BODY_TIMEOUT_MS: '250' });
    sandbox.setFaults({ wfm_timers: { stallAfterBytes: 400_000 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries.map((r) => [r.error.code, r.error.details.phase])).toEqual([['WFM_TIMEOUT', 'body']]);
  });

  it('survives a break on every request as long as each one hands out new rows', async () => {
    const { client, retries } = recordingClient({ WFM_RETRY_ATTEMPTS: '2' });
    sandbox.setFaults({ wfm_timers: { resetAfterBytes: 300_000, resetNext: 8 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries).toHaveLength(8);
  });

  it.each([
    ['reset', { resetAfterBytes: 0, resetNext: 10 }, 'WFM_NETWORK'],
    ['truncation', { truncateAfterBytes: 0, truncateNext: 10 }, 'WFM_BODY_TRUNCATED'],
    ['stall', { stallAfterBytes: 0, stallNext: 10 }, 'WFM_TIMEOUT'],
  ] as const)(
    'fails with the typed error when every attempt breaks before a row (%s)',
    async (_kind, fault, code) => {
      const { client } = recordingClient({ WFM_BODY_TIMEOUT_MS: '100', WFM_RETRY_ATTEMPTS: '3' });
      sandbox.setFaults({ wfm_timers: fault });
      const { rows, error } = await readUntilError(client);
      expect(rows).toEqual([]);
      expect(error).toMatchObject({ code, retryable: true, attempts: 3 });
    },
  );

  it('refuses to resume when the upstream ignores order and filters, instead of repeating rows', async () => {
    const { client } = recordingClient();
    sandbox.setFaults({ wfm_timers: { ignoreFilters: true, resetAfterBytes: 700_000 } });
    const { rows, error } = await readUntilError(client);
    expect(rows.length).toBeGreaterThan(0);
    expect(error).toMatchObject({ code: 'WFM_RESUME_UNSAFE', retryable: true });
  });
});

describe('completeness', () => {
  it('detects a server-side row cap and reads the rest by resuming', async () => {
    const { client, retries } = recordingClient();
    sandbox.setFaults({ wfm_timers: { rowCap: 1000 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(
      retries.map((r) => [r.error.code, r.error.details.expectedRows, r.error.details.receivedRows]),
    ).toEqual([
      ['WFM_INCOMPLETE', 3000, 1000],
      ['WFM_INCOMPLETE', 2000, 1000],
    ]);
  });

  it('fails with WFM_INCOMPLETE when the capped rows cannot be fetched within the attempts', async () => {
    const { client } = recordingClient({ WFM_RETRY_ATTEMPTS: '1' });
    sandbox.setFaults({ wfm_timers: { rowCap: 1000 } });
    const { rows, error } = await readUntilError(client);
    expect(rows).toHaveLength(1000);
    expect(error).toMatchObject({
      code: 'WFM_INCOMPLETE',
      retryable: true,
      details: expect.objectContaining({ expectedRows: 3000, receivedRows: 1000 }),
    });
  });

  it.each(['keyset', 'offset'] as const)(
    'detects a row cap on a %s page, where it looks like the last, short page',
    async (paging) => {
      const { client, retries } = recordingClient({ WFM_PAGING: paging, WFM_PAGE_SIZE: '1000' });
      sandbox.setFaults({ wfm_timers: { rowCap: 400 } });
      expect((await readAll(client)).ids).toEqual(allIds);
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.every((r) => r.error.code === 'WFM_INCOMPLETE')).toBe(true);
    },
  );

  it('cannot see a row cap without Prefer: count=exact (WFM_COUNT_EXACT=false)', async () => {
    const { client } = recordingClient({ WFM_COUNT_EXACT: 'false' });
    sandbox.setFaults({ wfm_timers: { rowCap: 1000 } });
    expect((await readAll(client)).ids).toEqual(allIds.slice(0, 1000));
  });

  it('passes invalid rows through to the caller as raw rows', async () => {
    const { client } = recordingClient();
    sandbox.setFaults({ wfm_timers: { invalidRowRate: 0.1 } });
    const { rows, ids } = await readAll(client);
    expect(ids).toEqual(allIds);
    const invalid = rows.filter((r) => !finishedShiftSchema.safeParse(r).success);
    expect(invalid.length).toBeGreaterThan(150);
    expect(invalid.length).toBeLessThan(450);
  });

  it('resumes exactly after invalid rows and duplicates too', async () => {
    const { client } = recordingClient();
    sandbox.setFaults({
      wfm_timers: { invalidRowRate: 0.2, duplicateRowRate: 0.05, resetAfterBytes: 900_000, resetNext: 2 },
    });
    const clean = recordingClient().client;
    const { ids } = await readAll(client);
    sandbox.setFaults({ wfm_timers: { invalidRowRate: 0.2, duplicateRowRate: 0.05 } });
    const expected = (await readAll(clean)).ids;
    expect(expected.length).toBeGreaterThan(allIds.length);
    // A reset between the two copies of a duplicated row may drop the second copy; nothing else.
    expect([...new Set(ids)]).toEqual(allIds);
    expect(ids.length).toBeGreaterThanOrEqual(expected.length - 2);
  });
});

describe('paging', () => {
  const window = { startGte: '2024-03-08T00:00:00', startLt: '2024-03-25T00:00:00' };

  it.each([
    ['keyset', '700'],
    ['keyset', '500'],
    ['offset', '700'],
    ['offset', '500'],
    ['none', '1'],
  ] as const)('reads exactly the same ids with %s paging, %s rows a page', async (paging, pageSize) => {
    const single = await readAll(clientWith(), { window });
    const paged = clientWith({ WFM_PAGING: paging, WFM_PAGE_SIZE: pageSize });
    const before = sandbox.requestCount('wfm_timers');
    expect((await readAll(paged, { window })).ids).toEqual(single.ids);
    expect((await readAll(paged)).ids).toEqual(allIds);
    const requests = sandbox.requestCount('wfm_timers') - before;
    if (paging !== 'none')
      expect(requests).toBeGreaterThanOrEqual(Math.ceil((single.ids.length + 3000) / Number(pageSize)));
  });

  it('reads an empty window as no rows in every mode', async () => {
    const empty = { startGte: '2030-01-01T00:00:00', startLt: '2030-01-02T00:00:00' };
    for (const paging of ['none', 'keyset', 'offset'] as const) {
      expect(
        (await readAll(clientWith({ WFM_PAGING: paging, WFM_PAGE_SIZE: '100' }), { window: empty })).rows,
      ).toEqual([]);
    }
  });

  it('resumes within a page after a reset, in keyset and offset modes', async () => {
    for (const paging of ['keyset', 'offset'] as const) {
      const { client, retries } = recordingClient({ WFM_PAGING: paging, WFM_PAGE_SIZE: '1200' });
      sandbox.setFaults({ wfm_timers: { resetAfterBytes: 600_000, resetNext: 2 } });
      expect((await readAll(client)).ids).toEqual(allIds);
      expect(retries.map((r) => r.error.code)).toEqual(['WFM_NETWORK', 'WFM_NETWORK']);
    }
  });

  it('stops with WFM_PAGING_UNSUPPORTED when the upstream ignores limit', async () => {
    const { client } = recordingClient({ WFM_PAGING: 'keyset', WFM_PAGE_SIZE: '500' });
    sandbox.setFaults({ wfm_timers: { ignoreFilters: true } });
    await expect(readAll(client)).rejects.toMatchObject({ code: 'WFM_PAGING_UNSUPPORTED', retryable: false });
  });
});

describe('limits and cancellation', () => {
  it('stops a body longer than WFM_MAX_BODY_BYTES with WFM_BODY_TOO_LARGE, not retried', async () => {
    const { client, retries } = recordingClient({ WFM_MAX_BODY_BYTES: '1000000' });
    const { error } = await readUntilError(client);
    expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false });
    expect(retries).toEqual([]);
  });

  it('stops a row longer than WFM_MAX_ROW_BYTES with WFM_BODY_TOO_LARGE', async () => {
    const big = await startTestSandbox({ rows: 50, longComment: { every: 10, bytes: 200_000 } });
    try {
      const client = clientFrom(testWfmConfig(big.url, { WFM_MAX_ROW_BYTES: '100000' }));
      const { rows, error } = await readUntilError(client);
      expect(rows.length).toBeLessThan(10);
      expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false });
      const roomy = clientFrom(testWfmConfig(big.url, { WFM_MAX_ROW_BYTES: '300000' }));
      expect((await readAll(roomy)).rows).toHaveLength(50);
    } finally {
      await big.close();
    }
  });

  it('stops at once with AbortedError when the signal aborts mid-body, and leaves no socket busy', async () => {
    const client = new WfmClient(testWfmConfig(sandbox.url), { reportBatchBytes: 16 * 1024 });
    const controller = new AbortController();
    let seen = 0;
    const error = await (async () => {
      for await (const batch of client.readShifts({ signal: controller.signal })) {
        seen += batch.length;
        if (seen > 100) controller.abort(new Error('shutdown'));
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(seen).toBeLessThan(3000);
    await client.close();
  });

  it('aborts a real wait between retries', async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    const client = clientWith(
      { WFM_RETRY_BASE_DELAY_MS: '60000', WFM_RETRY_MAX_DELAY_MS: '60000', WFM_RETRY_MAX_TOTAL_MS: '600000' },
      {
        clock: { ...systemClock, random: () => 0.99 },
        // Called just before the 59 s sleep starts.
        onRetry: (e) => {
          waits.push(e.delayMs);
          queueMicrotask(() => controller.abort());
        },
      },
    );
    sandbox.setFaults({ wfm_timers: { failNext: 5 } });
    const started = Date.now();
    await expect(readAll(client, { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(waits).toEqual([59_400]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('releases the connection when the caller stops reading early', async () => {
    const client = new WfmClient(testWfmConfig(sandbox.url), { reportBatchBytes: 16 * 1024 });
    for await (const batch of client.readShifts()) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    // close() waits for running requests: it returns only if the body was destroyed.
    await client.close();
  });
});

describe('bounding a slow read in time (WFM_READ_DEADLINE_MS, WFM_READ_MIN_BYTES_PER_SEC)', () => {
  it('fails a trickling attempt at the deadline, retryably, and resumes after its last row', async () => {
    const { client, retries } = recordingClient({
      WFM_READ_DEADLINE_MS: '1000',
      WFM_READ_MIN_BYTES_PER_SEC: '0',
    });
    sandbox.setFaults({ wfm_timers: { trickleBytesPerSecond: 4000 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries.map((r) => [r.error.code, r.error.details.phase])).toEqual([['WFM_TIMEOUT', 'deadline']]);
    expect(retries[0]?.error.message).toContain('WFM_READ_DEADLINE_MS=1000');
  });

  it('fails a body slower than WFM_READ_MIN_BYTES_PER_SEC, naming the limit', async () => {
    const { client } = recordingClient({
      WFM_READ_MIN_BYTES_PER_SEC: '5000',
      WFM_READ_RATE_WINDOW_MS: '500',
      WFM_RETRY_ATTEMPTS: '1',
    });
    sandbox.setFaults({ wfm_timers: { trickleBytesPerSecond: 500 } });
    const { error } = await readUntilError(client);
    expect(error).toMatchObject({ code: 'WFM_TIMEOUT', retryable: true, details: { phase: 'rate' } });
    expect((error as Error).message).toMatch(
      /below WFM_READ_MIN_BYTES_PER_SEC=5000 \(averaged over WFM_READ_RATE_WINDOW_MS=500\)/,
    );
  });

  it('gives up within the retry budget when every attempt trickles', async () => {
    const { client, retries } = recordingClient({ WFM_READ_DEADLINE_MS: '300', WFM_RETRY_ATTEMPTS: '3' });
    sandbox.setFaults({ wfm_timers: { trickleBytesPerSecond: 200, trickleNext: 100 } });
    const { error } = await readUntilError(client);
    expect(error).toMatchObject({ code: 'WFM_TIMEOUT', retryable: true, attempts: 3 });
    expect(retries).toHaveLength(2);
  });

  it('does not hold a slow reader against the upstream: only waiting for bytes counts', async () => {
    // The reader takes 1 ms per 4 rows (a slow destination): over wall time the body arrives at
    // ~4 MB/s, far below the 16 MiB/s asked for, while the upstream always had the next bytes
    // ready. Identity, so that the body outgrows the client's buffer and the socket is held back
    // for real.
    const client = clientWith(
      {
        WFM_COMPRESSION: 'false',
        WFM_READ_MIN_BYTES_PER_SEC: String(16 * 1024 * 1024),
        WFM_READ_RATE_WINDOW_MS: '300',
      },
      { clock: new FakeClock(), onRetry: (e) => retries.push(e) },
    );
    const retries: RetryEvent[] = [];
    const ids: number[] = [];
    for await (const batch of client.readShifts()) {
      for (const row of batch) ids.push((row as { id: number }).id);
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(batch.length / 4)));
    }
    expect(ids).toEqual(allIds);
    expect(retries).toEqual([]);
  });
});

describe('compressed bodies', () => {
  it('asks for gzip and reads the same rows as from identity, with far fewer bytes on the wire', async () => {
    const read = async (env: Partial<Record<EnvName, string>>) => {
      let last: ReadProgress | undefined;
      const { ids } = await readAll(clientWith(env), { onProgress: (p) => (last = p) });
      return { ids, progress: last };
    };
    const gzip = await read({});
    const identity = await read({ WFM_COMPRESSION: 'false' });
    expect(gzip.ids).toEqual(allIds);
    expect(identity.ids).toEqual(allIds);
    expect(identity.progress?.wireBytes).toBe(identity.progress?.decodedBytes);
    expect(gzip.progress?.decodedBytes).toBe(identity.progress?.decodedBytes);
    expect(gzip.progress?.wireBytes).toBeLessThan((gzip.progress?.decodedBytes ?? 0) / 3);
  });

  it('keeps memory flat while a busy reader decodes a large gzip body', async () => {
    const large = await startTestSandbox({ rows: 100_000 });
    try {
      const client = clientFrom(testWfmConfig(large.url), { reportBatchBytes: 64 * 1024 });
      let rows = 0;
      let batches = 0;
      const baseline = liveMemory();
      let peak = baseline;
      for await (const batch of client.readShifts()) {
        rows += batch.length;
        if (++batches % 32 === 0) peak = Math.max(peak, liveMemory());
      }
      expect(rows).toBe(100_000);
      expect(batches).toBeGreaterThan(32);
      // ~95 MB of JSON; what is alive at once stays a few MB (undici's 2 MiB, a decoded chunk, a batch).
      expect(peak - baseline).toBeLessThan(48 * 1024 * 1024);
    } finally {
      await large.close();
    }
  });

  it.each(['br', 'deflate'])('reads a %s body', async (encoding) => {
    sandbox.setFaults({ wfm_timers: { contentEncoding: encoding } });
    expect((await readAll(clientWith())).ids).toEqual(allIds);
  });

  it.each([
    ['reset', { resetAfterBytes: 700_000 }, 'WFM_NETWORK'],
    ['truncation', { truncateAfterBytes: 1_000_000 }, 'WFM_BODY_TRUNCATED'],
  ] as const)('resumes an identity body after a %s too', async (_kind, fault, code) => {
    const { client, retries } = recordingClient({ WFM_COMPRESSION: 'false' });
    sandbox.setFaults({ wfm_timers: fault });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries.map((r) => r.error.code)).toEqual([code]);
  });

  it('fails an undecodable Content-Encoding with WFM_BODY_INVALID saying what arrived', async () => {
    const { client } = recordingClient({ WFM_RETRY_ATTEMPTS: '1' });
    sandbox.setFaults({ wfm_timers: { contentEncoding: 'zstd' } });
    const { rows, error } = await readUntilError(client);
    expect(rows).toEqual([]);
    expect(error).toMatchObject({
      code: 'WFM_BODY_INVALID',
      retryable: true,
      details: expect.objectContaining({ contentEncoding: 'zstd' }),
    });
    expect((error as Error).message).toContain('Content-Encoding "zstd" cannot be decoded');
    expect((error as Error).message).toContain('body starting "[{"id":');
  });
});

describe('a 200 that is not the report', () => {
  it('quotes an HTML page: type, encoding and its first characters, on one line, without the token', async () => {
    const { client } = recordingClient({ WFM_RETRY_ATTEMPTS: '1' });
    sandbox.setFaults({ wfm_timers: { wrongBody: 'html' } });
    const { error } = await readUntilError(client);
    expect(error).toMatchObject({ code: 'WFM_BODY_INVALID', retryable: true });
    const line = (error as WfmError).toOneLine();
    expect(line).not.toMatch(/[\n\r]/);
    expect(line).toContain('Content-Type text/html; charset=utf-8, Content-Encoding gzip');
    expect(line).toContain('body starting "<!DOCTYPE html> <!-- proxy debug: Authorization: Bearer *** -->');
    expect(JSON.stringify(error)).not.toContain('sandbox-admin');
  });

  it('quotes a JSON object sent instead of the array', async () => {
    const { client } = recordingClient({ WFM_RETRY_ATTEMPTS: '1', WFM_COMPRESSION: 'false' });
    sandbox.setFaults({ wfm_timers: { wrongBody: 'object' } });
    const { error } = await readUntilError(client);
    expect((error as Error).message).toContain(
      'not a JSON array (no leading "["); received Content-Type application/json; charset=utf-8, Content-Encoding (none), body starting "{"status":"unavailable"',
    );
  });

  it('is retried like a proxy’s passing error page, and the read then completes', async () => {
    const { client, retries } = recordingClient();
    sandbox.setFaults({ wfm_timers: { wrongBody: 'html', wrongBodyNext: 2 } });
    expect((await readAll(client)).ids).toEqual(allIds);
    expect(retries.map((r) => r.error.code)).toEqual(['WFM_BODY_INVALID', 'WFM_BODY_INVALID']);
  });
});
