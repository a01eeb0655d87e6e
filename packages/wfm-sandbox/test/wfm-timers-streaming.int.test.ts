import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/index.js';
import { liveMemory } from './support/live-memory.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from './support/test-sandbox.js';

const TIMERS = '/v1/connector/rpc/wfm_timers';

interface Download {
  readonly bytes: number;
  readonly sha256: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Highest live heap + arrayBuffers seen while the body streamed, in bytes. */
  readonly peakMemory: number;
}

async function download(sandbox: RunningSandbox, query = ''): Promise<Download> {
  const res = await request(`${sandbox.url}${TIMERS}${query}`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  const hash = createHash('sha256');
  let bytes = 0;
  let peakMemory = 0;
  let chunks = 0;
  for await (const chunk of res.body) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    if (++chunks % 256 === 0) peakMemory = Math.max(peakMemory, liveMemory());
  }
  return { bytes, sha256: hash.digest('hex'), headers: res.headers, peakMemory };
}

describe('streaming the report', () => {
  let big: RunningSandbox;

  beforeAll(async () => {
    big = await startTestSandbox({ rows: 200_000 });
  });

  afterAll(async () => {
    await big.close();
  });

  it('streams 200,000 rows (~190 MB) chunked while the process memory stays modest', async () => {
    const baseline = liveMemory();
    const result = await download(big);
    expect(result.headers['transfer-encoding']).toBe('chunked');
    expect(result.headers['content-length']).toBeUndefined();
    expect(result.bytes).toBeGreaterThan(150_000_000);
    // Server and client share this process: a body built in memory would add ~190 MB.
    expect(result.peakMemory).toBeGreaterThan(0);
    expect(result.peakMemory - baseline).toBeLessThan(64 * 1024 * 1024);
  });

  it('jumps straight to a keyset page deep in the report', async () => {
    const res = await request(`${big.url}${TIMERS}?order=id.asc&id=gt.1500000&limit=1000`, {
      headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}`, prefer: 'count=exact' },
    });
    const rows = (await res.body.json()) as { id: number }[];
    expect(rows).toHaveLength(1000);
    expect(rows[0]?.id).toBeGreaterThan(1_500_000);
    expect(rows[0]?.id).toBeLessThanOrEqual(1_500_005);
    expect(res.headers['content-range']).toMatch(/^0-999\/\d+$/);
  });
});

describe('edge-case reports', () => {
  it('serves an empty report as [] with rows: 0', async () => {
    const empty = await startTestSandbox({ rows: 0 });
    try {
      const res = await request(`${empty.url}${TIMERS}`, {
        headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}`, prefer: 'count=exact' },
      });
      expect(res.headers['content-range']).toBe('*/0');
      expect(await res.body.json()).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('streams rows with a 1 MB comment intact', async () => {
    const sb = await startTestSandbox({ rows: 300, longComment: { every: 100, bytes: 1_048_576 } });
    try {
      const res = await request(`${sb.url}${TIMERS}`, {
        headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
      });
      const rows = (await res.body.json()) as { comment: string | null }[];
      expect(rows).toHaveLength(300);
      const sizes = rows.map((r) => Buffer.byteLength(r.comment ?? ''));
      expect(sizes.filter((b) => b >= 1_048_576)).toHaveLength(3);
      expect(sizes[99]).toBeGreaterThanOrEqual(1_048_576);
    } finally {
      await sb.close();
    }
  });
});

describe('determinism', () => {
  it('serves the same bytes for the same seed, and different bytes for another seed', async () => {
    const [a, b, c] = await Promise.all([
      startTestSandbox({ rows: 20_000, seed: 11 }),
      startTestSandbox({ rows: 20_000, seed: 11 }),
      startTestSandbox({ rows: 20_000, seed: 12 }),
    ]);
    try {
      const first = await download(a);
      expect((await download(b)).sha256).toBe(first.sha256);
      expect((await download(a)).sha256).toBe(first.sha256);
      expect((await download(c)).sha256).not.toBe(first.sha256);
      expect(a.dataset).toEqual(b.dataset);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('describes its dataset: rows, business dates and organisation size', async () => {
    const sb = await startTestSandbox({ rows: 1234, endDate: '2024-02-29', days: 7 });
    try {
      expect(sb.dataset).toMatchObject({ rows: 1234, firstDate: '2024-02-23', lastDate: '2024-02-29' });
      expect(sb.dataset.divisions).toBeGreaterThanOrEqual(6);
      expect(sb.url).toBe(`http://127.0.0.1:${sb.port}`);
    } finally {
      await sb.close();
    }
  });
});
