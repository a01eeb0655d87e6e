import { isUtf8 } from 'node:buffer';
import { gunzipSync, brotliDecompressSync, inflateSync, constants as zlib } from 'node:zlib';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import type { RunningSandbox } from '../src/index.js';
import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { HOSTILE_COMMENTS } from '../src/hostile-text.js';
import { finishedShiftSchema } from 'wfm-contract/finished-shift';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from './support/test-sandbox.js';
import { call, get, json } from './support/sandbox-http.js';

const ROWS = 2000;
const TIMERS = '/v1/connector/rpc/wfm_timers';
let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: ROWS });
});

afterEach(() => {
  sandbox.clearFaults();
});

afterAll(async () => {
  await sandbox.close();
});

/** The contract plus the semantic rules the invalid variants break (dates, offsets, order). */
function isValidRow(row: unknown): boolean {
  const parsed = finishedShiftSchema.safeParse(row);
  if (!parsed.success) return false;
  const r = parsed.data;
  const start = parseLocalDateTimeSeconds(r.start_time);
  const finish = parseLocalDateTimeSeconds(r.finish_time);
  const offsetsOk = [r.start_time_offset, r.finish_time_offset].every((o) => o >= -720 && o <= 840);
  return start !== undefined && finish !== undefined && finish >= start && r.duration >= 0 && offsetsOk;
}

interface RawRead {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly bytes: Buffer;
  readonly chunks: readonly Buffer[];
  readonly error: Error | undefined;
}

/** Reads a body chunk by chunk (as sent: not decoded) and keeps what arrived before any failure. */
async function readRaw(
  sb: RunningSandbox,
  path: string,
  bodyTimeout = 30_000,
  headers: Record<string, string> = {},
  stopAfterBytes = Infinity,
): Promise<RawRead> {
  const res = await request(`${sb.url}${path}`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}`, ...headers },
    bodyTimeout,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  let error: Error | undefined;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= stopAfterBytes) break;
    }
  } catch (e) {
    error = e as Error;
  }
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.concat(chunks), chunks, error };
}

describe('sandbox faults', () => {
  it('delays responses by latencyMs', async () => {
    sandbox.setFaults({ divisions: { latencyMs: 150 } });
    const started = performance.now();
    expect((await get(sandbox, '/v1/orgstruct/divisions')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('fails the next N requests with errorStatus, then recovers', async () => {
    sandbox.setFaults({ wfm_timers: { failNext: 2, errorStatus: 502 } });
    const first = await get(sandbox, `${TIMERS}?limit=1`);
    expect(first.status).toBe(502);
    expect(json(first)).toEqual({ error: 'Bad Gateway', message: expect.stringContaining('sandbox fault') });
    expect((await get(sandbox, `${TIMERS}?limit=1`)).status).toBe(502);
    expect((await get(sandbox, `${TIMERS}?limit=1`)).status).toBe(200);
  });

  it('fails 503 by default, and injected 401 / 403 look like auth failures', async () => {
    sandbox.setFaults({ categories: { failNext: 1 }, divisions: { failNext: 1, errorStatus: 401 } });
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(503);
    expect((await get(sandbox, '/v1/orgstruct/divisions')).status).toBe(401);
  });

  it('fails at errorRate, the same requests each time the plan is set', async () => {
    const statuses = async (): Promise<number[]> => {
      sandbox.setFaults({ categories: { errorRate: 0.5, errorStatus: 500 } });
      const out: number[] = [];
      for (let i = 0; i < 16; i++) out.push((await get(sandbox, '/v1/survey/categories')).status);
      return out;
    };
    const first = await statuses();
    expect(new Set(first)).toEqual(new Set([200, 500]));
    expect(await statuses()).toEqual(first);
    sandbox.setFaults({ categories: { errorRate: 1 } });
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(503);
  });

  it('answers 429 with Retry-After in seconds or as an HTTP date', async () => {
    sandbox.setFaults({ wfm_timers: { rateLimitNext: 1, retryAfter: '2' } });
    const limited = await get(sandbox, `${TIMERS}?limit=1`);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    expect((await get(sandbox, `${TIMERS}?limit=1`)).status).toBe(200);
    const date = new Date(Date.UTC(2030, 0, 1)).toUTCString();
    sandbox.setFaults({ '*': { rateLimitNext: 1, retryAfter: date } });
    expect((await get(sandbox, '/v1/orgstruct/divisions')).headers['retry-after']).toBe(date);
    sandbox.setFaults({ '*': { rateLimitNext: 1 } });
    expect((await get(sandbox, '/v1/orgstruct/divisions')).headers['retry-after']).toBe('1');
  });

  it('resets the connection after resetAfterBytes body bytes', async () => {
    sandbox.setFaults({ wfm_timers: { resetAfterBytes: 5000 } });
    const broken = await readRaw(sandbox, TIMERS);
    expect(broken.status).toBe(200);
    expect(broken.bytes.length).toBe(5000);
    expect(broken.error).toBeDefined();
    const whole = await readRaw(sandbox, TIMERS);
    expect(whole.error).toBeUndefined();
    expect(whole.bytes.subarray(0, 5000)).toEqual(broken.bytes);
  });

  it('ends the body cleanly but cut after truncateAfterBytes, for truncateNext requests', async () => {
    sandbox.setFaults({ wfm_timers: { truncateAfterBytes: 12_345, truncateNext: 2 } });
    for (let i = 0; i < 2; i++) {
      const cut = await readRaw(sandbox, TIMERS);
      expect(cut.error).toBeUndefined();
      expect(cut.bytes.length).toBe(12_345);
      expect(() => JSON.parse(cut.bytes.toString('utf8'))).toThrow();
    }
    expect(JSON.parse((await readRaw(sandbox, TIMERS)).bytes.toString('utf8'))).toHaveLength(ROWS);
  });

  it('breaks a body shorter than the fault’s byte count at its end', async () => {
    sandbox.setFaults({ divisions: { resetAfterBytes: 10_000_000 } });
    const res = await readRaw(sandbox, '/v1/orgstruct/divisions');
    expect(res.error).toBeDefined();
  });

  it('stalls after stallAfterBytes until the client gives up', async () => {
    sandbox.setFaults({ wfm_timers: { stallAfterBytes: 3000 } });
    const stalled = await readRaw(sandbox, TIMERS, 300);
    expect(stalled.bytes.length).toBe(3000);
    expect(stalled.error?.name).toBe('BodyTimeoutError');
    expect((await readRaw(sandbox, `${TIMERS}?limit=1`)).error).toBeUndefined();
  });

  it('caps rows silently while Content-Range tells the true total', async () => {
    sandbox.setFaults({ wfm_timers: { rowCap: 100 } });
    const res = await get(sandbox, TIMERS, { headers: { prefer: 'count=exact' } });
    expect(json<unknown[]>(res)).toHaveLength(100);
    expect(res.headers['content-range']).toBe(`0-99/${ROWS}`);
    sandbox.setFaults({ divisions: { rowCap: 2 }, categories: { rowCap: 1 } });
    expect(json<unknown[]>(await get(sandbox, '/v1/orgstruct/divisions'))).toHaveLength(2);
    expect(json<unknown[]>(await get(sandbox, '/v1/survey/categories'))).toHaveLength(1);
  });

  it('replaces rows with invalid variants at invalidRowRate, the same rows on every request', async () => {
    sandbox.setFaults({ wfm_timers: { invalidRowRate: 0.1 } });
    const read = async (): Promise<Record<string, unknown>[]> => json(await get(sandbox, TIMERS));
    const first = await read();
    expect(first).toHaveLength(ROWS);
    const invalid = first.filter((r) => !isValidRow(r));
    expect(invalid.length).toBeGreaterThan(ROWS * 0.06);
    expect(invalid.length).toBeLessThan(ROWS * 0.14);
    expect(invalid.every((r) => typeof r.id === 'number')).toBe(true);
    expect(await read()).toEqual(first);
    sandbox.setFaults({ wfm_timers: { invalidRowRate: 1 } });
    const allBad = await read();
    expect(allBad.filter(isValidRow)).toEqual([]);
  });

  it('breaks rows only in the ways named by invalidRowVariants, byte for byte', async () => {
    const clean = json<FinishedShift[]>(await get(sandbox, TIMERS));
    const cleanIds = clean.map((r) => r.id);
    const byVariant = async (variant: string): Promise<Buffer> => {
      sandbox.setFaults({ wfm_timers: { invalidRowRate: 1, invalidRowVariants: [variant] } });
      const read = await readRaw(sandbox, TIMERS);
      expect(read.status).toBe(200);
      return read.bytes;
    };
    const huge = (await byVariant('id past 2^53')).toString('utf8');
    const written = [...huge.matchAll(/\{"id":(\d+),/g)].map((m) => BigInt(m[1] ?? ''));
    expect(written).toEqual(cleanIds.map((id) => BigInt(id) + 2n ** 56n));
    const rounded = (
      await byVariant('id with a fraction JSON.parse rounds away, missing start_time')
    ).toString('utf8');
    expect(rounded).toContain(`{"id":${cleanIds[0]}.000000000000000001,`);
    expect((JSON.parse(rounded) as FinishedShift[]).map((r) => r.id)).toEqual(cleanIds);
    const notUtf8 = await byVariant('comment not UTF-8');
    expect(isUtf8(notUtf8)).toBe(false);
    expect((JSON.parse(notUtf8.toString('utf8')) as FinishedShift[]).every(isValidRow)).toBe(true);
    sandbox.setFaults({ wfm_timers: { invalidRowRate: 1 } });
    const defaults = await readRaw(sandbox, TIMERS);
    expect(isUtf8(defaults.bytes)).toBe(true);
    expect((JSON.parse(defaults.bytes.toString('utf8')) as FinishedShift[]).map((r) => r.id)).toEqual(
      cleanIds,
    );
  });

  it('sends some rows twice at duplicateRowRate', async () => {
    sandbox.setFaults({ wfm_timers: { duplicateRowRate: 0.05 } });
    const res = await get(sandbox, TIMERS, { headers: { prefer: 'count=exact' } });
    const got = json<FinishedShift[]>(res);
    const unique = new Set(got.map((r) => r.id));
    expect(unique.size).toBe(ROWS);
    expect(got.length - ROWS).toBeGreaterThan(ROWS * 0.02);
    expect(res.headers['content-range']).toBe(`0-${ROWS - 1}/${ROWS}`);
  });

  it('gives rows hostile text at hostileTextRate: valid rows, the same on every request, the others untouched', async () => {
    const clean = json<FinishedShift[]>(await get(sandbox, TIMERS));
    sandbox.setFaults({ wfm_timers: { hostileTextRate: 0.1 } });
    const first = await get(sandbox, TIMERS);
    const rows = json<FinishedShift[]>(first);
    expect(rows.map((r) => r.id)).toEqual(clean.map((r) => r.id));
    expect(rows.every(isValidRow)).toBe(true);
    const changed = rows.filter((r, i) => JSON.stringify(r) !== JSON.stringify(clean[i]));
    expect(changed.length).toBeGreaterThan(ROWS * 0.06);
    expect(changed.length).toBeLessThan(ROWS * 0.14);
    expect(changed.every((r) => HOSTILE_COMMENTS.includes(r.comment ?? ''))).toBe(true);
    // Unpaired surrogates travel as \u escapes, U+FFFE as its UTF-8 bytes.
    expect(first.text).toMatch(/\\ud83d/i);
    expect(first.text).toContain('\uFFFE');
    expect((await get(sandbox, TIMERS)).text).toBe(first.text);
    sandbox.setFaults({ wfm_timers: { hostileTextRate: 0 } });
    expect(json(await get(sandbox, TIMERS))).toEqual(clean);
  });

  it('ignores every filter, order, limit and offset with ignoreFilters, and sends no Content-Range', async () => {
    sandbox.setFaults({ wfm_timers: { ignoreFilters: true } });
    const res = await get(sandbox, `${TIMERS}?id=eq.1&order=id.desc&limit=1&offset=5&nonsense=1`);
    expect(res.status).toBe(200);
    expect(res.headers['content-range']).toBeUndefined();
    const got = json<FinishedShift[]>(res);
    expect(got).toHaveLength(ROWS);
    expect(got[0]?.id).toBeLessThan(got[1]?.id ?? 0);
  });

  it("keeps a target's faults to its endpoint and applies '*' to all", async () => {
    sandbox.setFaults({ divisions: { failNext: 5 } });
    expect((await get(sandbox, `${TIMERS}?limit=1`)).status).toBe(200);
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(200);
    expect((await get(sandbox, '/v1/orgstruct/divisions')).status).toBe(503);
    sandbox.setFaults({ '*': { failNext: 3 } });
    expect((await get(sandbox, `${TIMERS}?limit=1`)).status).toBe(503);
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(503);
    expect((await get(sandbox, '/v1/orgstruct/divisions/1')).status).toBe(503);
    expect((await get(sandbox, '/v1/orgstruct/divisions/1')).status).toBe(200);
  });

  it('injects faults before checking the token', async () => {
    sandbox.setFaults({ wfm_timers: { failNext: 1 } });
    expect((await get(sandbox, TIMERS, { token: null })).status).toBe(503);
    expect((await get(sandbox, TIMERS, { token: null })).status).toBe(401);
  });
});

describe('sandbox compression and bodies that are not the report', () => {
  const GZIP = { 'accept-encoding': 'gzip, deflate, br' };

  it('gzips the report when the request accepts gzip: the same bytes once decoded, far fewer sent', async () => {
    const plain = await readRaw(sandbox, TIMERS);
    const zipped = await readRaw(sandbox, TIMERS, 30_000, GZIP);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['vary']).toBe('accept-encoding');
    expect(gunzipSync(zipped.bytes).equals(plain.bytes)).toBe(true);
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 3);
  });

  it('answers identity when gzip is refused with q=0', async () => {
    const refused = await readRaw(sandbox, TIMERS, 30_000, { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.bytes.toString('utf8'))).toHaveLength(ROWS);
  });

  it('answers in the contentEncoding of the plan, whatever the request accepts', async () => {
    const plain = (await readRaw(sandbox, TIMERS)).bytes;
    const decoders = {
      br: brotliDecompressSync,
      deflate: inflateSync,
      identity: (b: Buffer) => b,
      zstd: (b: Buffer) => b, // an unknown name only labels the plain bytes
    };
    for (const [encoding, decode] of Object.entries(decoders)) {
      sandbox.setFaults({ wfm_timers: { contentEncoding: encoding } });
      const answer = await readRaw(sandbox, TIMERS, 30_000, GZIP);
      expect(answer.headers['content-encoding'], encoding).toBe(
        encoding === 'identity' ? undefined : encoding,
      );
      expect(decode(answer.bytes).equals(plain), encoding).toBe(true);
    }
  });

  it('places body faults by bytes of the body before compression', async () => {
    const plain = (await readRaw(sandbox, TIMERS)).bytes;
    sandbox.setFaults({ wfm_timers: { truncateAfterBytes: 50_000 } });
    const truncated = await readRaw(sandbox, TIMERS, 30_000, GZIP);
    expect(truncated.error).toBeUndefined();
    expect(gunzipSync(truncated.bytes).equals(plain.subarray(0, 50_000))).toBe(true);
    sandbox.setFaults({ wfm_timers: { resetAfterBytes: 50_000 } });
    const reset = await readRaw(sandbox, TIMERS, 30_000, GZIP);
    expect(reset.error).toBeDefined();
    // Flushed up to the break: the part that arrived decodes to the body's first 50,000 bytes.
    const arrived = gunzipSync(reset.bytes, { finishFlush: zlib.Z_SYNC_FLUSH });
    expect(arrived.equals(plain.subarray(0, 50_000))).toBe(true);
  });

  it('trickles the body in slices of a tenth of trickleBytesPerSecond, compressed or not', async () => {
    for (const headers of [{}, GZIP]) {
      sandbox.setFaults({ wfm_timers: { trickleBytesPerSecond: 1000 } });
      const slow = await readRaw(sandbox, TIMERS, 30_000, headers, 300);
      expect(slow.chunks.length).toBeGreaterThanOrEqual(2);
      // One slice a tick; a busy reader may find two or three in the socket at once.
      expect(Math.max(...slow.chunks.map((c) => c.length))).toBeLessThanOrEqual(300);
    }
    expect((await readRaw(sandbox, `${TIMERS}?limit=1`)).error).toBeUndefined();
  });

  it('answers 200 with an HTML page that echoes the Authorization header, for wrongBodyNext requests', async () => {
    sandbox.setFaults({ wfm_timers: { wrongBody: 'html', wrongBodyNext: 2 } });
    for (let i = 0; i < 2; i++) {
      const page = await get(sandbox, TIMERS);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toMatch(/^<!DOCTYPE html>/);
      expect(page.text).toContain(`Authorization: Bearer ${SANDBOX_ADMIN_TOKEN}`);
    }
    expect(json(await get(sandbox, TIMERS))).toHaveLength(ROWS);
  });

  it('answers 200 with a JSON object instead of the array for a wrongBody "object"', async () => {
    sandbox.setFaults({ wfm_timers: { wrongBody: 'object' } });
    const answer = await readRaw(sandbox, TIMERS, 30_000, GZIP);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(gunzipSync(answer.bytes).toString('utf8'))).toMatchObject({ data: [] });
  });
});

describe('sandbox control over HTTP', () => {
  it('sets, reads and clears the fault plan and counts requests per endpoint', async () => {
    const plan = { categories: { failNext: 1 } };
    const put = await call(sandbox, 'PUT', '/_sandbox/faults', { token: null, body: plan });
    expect(put.status).toBe(200);
    expect(json(put)).toEqual({ faults: plan });
    const before = json<{ requests: Record<string, number> }>(
      await get(sandbox, '/_sandbox/stats', { token: null }),
    );
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(503);
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(200);
    const after = json<{ requests: Record<string, number>; dataset: { rows: number } }>(
      await get(sandbox, '/_sandbox/stats', { token: null }),
    );
    expect(after.requests.categories).toBe((before.requests.categories ?? 0) + 2);
    expect(after.requests['*']).toBe((before.requests['*'] ?? 0) + 2);
    expect(after.dataset.rows).toBe(ROWS);
    expect(sandbox.requestCount('categories')).toBe(after.requests.categories);
    await call(sandbox, 'PUT', '/_sandbox/faults', { token: null, body: plan });
    expect(json(await call(sandbox, 'DELETE', '/_sandbox/faults', { token: null }))).toEqual({ faults: {} });
    expect((await get(sandbox, '/v1/survey/categories')).status).toBe(200);
    expect(json(await get(sandbox, '/_sandbox/faults', { token: null }))).toEqual({ faults: {} });
  });

  it('refuses an invalid plan with 400 and keeps the current one', async () => {
    sandbox.setFaults({ divisions: { latencyMs: 1 } });
    const res = await call(sandbox, 'PUT', '/_sandbox/faults', {
      token: null,
      body: { divisions: { errorRate: 7 } },
    });
    expect(res.status).toBe(400);
    expect(json(await get(sandbox, '/_sandbox/faults', { token: null }))).toEqual({
      faults: { divisions: { latencyMs: 1 } },
    });
  });

  it('starts with the faults option in force and refuses an invalid one', async () => {
    const faulty = await startTestSandbox({ rows: 10, faults: { '*': { failNext: 1 } } });
    try {
      expect((await get(faulty, '/v1/survey/categories')).status).toBe(503);
      expect((await get(faulty, '/v1/survey/categories')).status).toBe(200);
    } finally {
      await faulty.close();
    }
    await expect(startTestSandbox({ faults: { '*': { errorRate: 2 } } })).rejects.toThrow(/faults/);
  });
});

describe('RunningSandbox.close', () => {
  it('returns promptly while a response is stalled, ending that connection', async () => {
    const sb = await startTestSandbox({ rows: 500, faults: { wfm_timers: { stallAfterBytes: 100 } } });
    const res = await request(`${sb.url}${TIMERS}`, {
      headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
    });
    const reader = (async () => {
      let bytes = 0;
      try {
        for await (const chunk of res.body) bytes += (chunk as Buffer).length;
        return { bytes, failed: false };
      } catch {
        return { bytes, failed: true };
      }
    })();
    const started = performance.now();
    await sb.close();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await reader).toEqual({ bytes: 100, failed: true });
  });

  it('refuses invalid options with a ConfigError', async () => {
    await expect(startTestSandbox({ rows: -1 })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(startTestSandbox({ endDate: '2024-02-30' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    await expect(startTestSandbox({ days: 0 })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});
