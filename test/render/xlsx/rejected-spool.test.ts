import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RejectedRow } from '../../../src/domain/rejected-row.js';
import { RejectedSpool } from '../../../src/render/xlsx/rejected-spool.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rejected-spool-test-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(spool: RejectedSpool): Promise<RejectedRow[]> {
  const rows: RejectedRow[] = [];
  for await (const row of spool.read()) rows.push(row);
  return rows;
}

describe('RejectedSpool', () => {
  it('gives back every row in order, whatever its text holds', async () => {
    const rows: RejectedRow[] = [
      { id: 1, reason: 'finish_time: before start_time', rawJson: '{"id":1,"comment":"line\\nbreak"}' },
      {
        id: null,
        reason: 'id: expected number\r\nsecond line',
        rawJson: '{"comment":"=1+1 \u2028 😀 \\"q\\""}',
      },
      { id: 3, reason: '', rawJson: '' },
    ];
    const spool = new RejectedSpool(dir);
    for (const row of rows) {
      const wait = spool.add(row);
      if (wait) await wait;
    }
    expect(spool.count).toBe(3);
    expect(await readAll(spool)).toEqual(rows);
    await spool.dispose();
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps many rows on disk, not in memory, and reads them all back', async () => {
    const spool = new RejectedSpool(dir);
    for (let id = 0; id < 20_000; id++) {
      const wait = spool.add({ id, reason: 'x: bad', rawJson: `{"id":${id},"pad":"${'p'.repeat(100)}"}` });
      if (wait) await wait;
    }
    let count = 0;
    let last = -1;
    for await (const row of spool.read()) {
      expect(row.id).toBe(last + 1);
      last = row.id ?? last;
      count++;
    }
    expect(count).toBe(20_000);
    await spool.dispose();
  });

  it('reads nothing and leaves no file when no row was added', async () => {
    const spool = new RejectedSpool(dir);
    expect(await readAll(spool)).toEqual([]);
    await spool.dispose();
    await spool.dispose();
    expect(await readdir(dir)).toEqual([]);
  });

  it('can be disposed before it was read, and twice', async () => {
    const spool = new RejectedSpool(dir);
    spool.add({ id: 1, reason: 'r', rawJson: '{}' });
    await spool.dispose();
    await spool.dispose();
    expect(await readdir(dir)).toEqual([]);
  });

  it('fails with XLSX_WRITE_FAILED when its directory cannot be written', async () => {
    const spool = new RejectedSpool(join(dir, 'missing', 'deeper'));
    spool.add({ id: 1, reason: 'r', rawJson: '{}' });
    await expect(readAll(spool)).rejects.toMatchObject({ code: 'XLSX_WRITE_FAILED', retryable: true });
    await spool.dispose();
  });
});

describe('RejectedSpool line separators', () => {
  it('keeps U+2028 and U+2029 inside one row (Node 24 readline ends lines at them)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rejected-spool-sep-'));
    const spool = new RejectedSpool(dir);
    const rows = [
      { id: 1, reason: 'a\u2028b', rawJson: '{"c":"x\u2029y"}' },
      { id: 2, reason: 'plain', rawJson: '{}' },
    ];
    for (const row of rows) await spool.add(row);
    const back: RejectedRow[] = [];
    for await (const row of spool.read()) back.push(row);
    await spool.dispose();
    await rm(dir, { recursive: true, force: true });
    expect(back).toEqual(rows);
  });
});
