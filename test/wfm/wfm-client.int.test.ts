// Every endpoint and query parameter of the spec through WfmClient, against the sandbox over real
// HTTP on 127.0.0.1; authentication failures; POST never retried.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { finishedShiftSchema } from 'wfm-contract/finished-shift';
import { InvalidRequestError } from '../../src/errors.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { WfmClient } from '../../src/wfm/wfm-client.js';
import type { CategoryInput } from 'wfm-contract/category';
import type { Division } from 'wfm-contract/division';
import { SANDBOX_NOROLE_TOKEN, SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { readAll, testWfmConfig } from './wfm-test-support.js';

let sandbox: RunningSandbox;
let client: WfmClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  client = new WfmClient(testWfmConfig(sandbox.url));
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

afterEach(() => sandbox.clearFaults());

/** A client with another token, closed after `use`. */
async function withToken<T>(token: string, use: (c: WfmClient) => Promise<T>): Promise<T> {
  const other = new WfmClient(testWfmConfig(sandbox.url, { WFM_TOKEN: token }));
  try {
    return await use(other);
  } finally {
    await other.close();
  }
}

describe('categories', () => {
  it('lists every category with its templates embedded, each checked against the spec', async () => {
    const all = await client.listCategories();
    expect(all.length).toBeGreaterThanOrEqual(10);
    const template = all.flatMap((c) => c.templates)[0];
    expect(template).toMatchObject({
      type: expect.any(String),
      categoryId: expect.any(String),
      quick: expect.any(Boolean),
    });
    expect(Object.keys(template ?? {})).toEqual(
      expect.arrayContaining(['updateAt', 'modifiedAt', 'labels', 'gradeConditions']),
    );
  });

  it('filters by active', async () => {
    const all = await client.listCategories();
    const active = await client.listCategories({ active: true });
    const inactive = await client.listCategories({ active: false });
    expect(active.every((c) => c.active)).toBe(true);
    expect(inactive.every((c) => !c.active)).toBe(true);
    expect(active.length).toBeGreaterThan(0);
    expect(inactive.length).toBeGreaterThan(0);
    expect(active.length + inactive.length).toBe(all.length);
  });

  it('filters by quick', async () => {
    const quick = await client.listCategories({ quick: true });
    const notQuick = await client.listCategories({ quick: false });
    expect(quick.length).toBeGreaterThan(0);
    expect(quick.every((c) => c.templates.some((t) => t.quick))).toBe(true);
    expect(notQuick.every((c) => c.templates.every((t) => !t.quick))).toBe(true);
  });

  it('filters by notEmpty', async () => {
    const all = await client.listCategories();
    const notEmpty = await client.listCategories({ notEmpty: true });
    expect(all.some((c) => c.templates.length === 0)).toBe(true);
    expect(notEmpty.every((c) => c.templates.length > 0)).toBe(true);
    expect(notEmpty.length).toBe(all.filter((c) => c.templates.length > 0).length);
    expect(await client.listCategories({ notEmpty: false })).toHaveLength(all.length);
  });

  it('creates, updates and deletes a category', async () => {
    const input: CategoryInput = {
      name: 'Opening checks, "new"',
      active: true,
      unavailableIfUserIds: [1, 2],
    };
    const created = await client.createCategory(input);
    expect(created).toMatchObject({ ...input, templateIds: [], templates: [] });

    const updated = await client.updateCategory(created.id, {
      name: 'Closing checks',
      active: false,
      unavailableIfGroupIds: [7],
    });
    expect(updated).toMatchObject({
      id: created.id,
      name: 'Closing checks',
      active: false,
      unavailableIfGroupIds: [7],
    });
    expect((await client.listCategories({ active: false })).map((c) => c.id)).toContain(created.id);

    await expect(client.deleteCategory(created.id)).resolves.toBeUndefined();
    expect((await client.listCategories()).map((c) => c.id)).not.toContain(created.id);
  });

  it('reports an unknown id as a non-retryable 404, after one attempt', async () => {
    const before = sandbox.requestCount('categories');
    const error = await client.deleteCategory('no-such-category').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'WFM_HTTP_STATUS', status: 404, retryable: false, attempts: 1 });
    expect((error as { details: { bodyExcerpt?: string } }).details.bodyExcerpt).toContain('not found');
    expect(sandbox.requestCount('categories') - before).toBe(1);
  });

  it('rejects a body that breaks the spec before sending it', async () => {
    const before = sandbox.requestCount('categories');
    const bad = { name: 'x' } as unknown as CategoryInput;
    await expect(client.createCategory(bad)).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(
      client.updateCategory('abc', { ...bad, active: true, colour: 'red' } as CategoryInput),
    ).rejects.toBeInstanceOf(InvalidRequestError);
    expect(sandbox.requestCount('categories')).toBe(before);
  });

  it('never retries a POST, but retries the PUT and DELETE that follow it', async () => {
    sandbox.setFaults({ categories: { failNext: 1, errorStatus: 503 } });
    const before = sandbox.requestCount('categories');
    await expect(client.createCategory({ name: 'once', active: true })).rejects.toMatchObject({
      code: 'WFM_HTTP_STATUS',
      status: 503,
      attempts: 1,
    });
    expect(sandbox.requestCount('categories') - before).toBe(1);

    const created = await client.createCategory({ name: 'twice', active: true });
    sandbox.setFaults({ categories: { failNext: 2, errorStatus: 500 } });
    await expect(client.updateCategory(created.id, { name: 'thrice', active: true })).resolves.toMatchObject({
      name: 'thrice',
    });
    sandbox.setFaults({ categories: { failNext: 1, errorStatus: 502 } });
    const beforeDelete = sandbox.requestCount('categories');
    await client.deleteCategory(created.id);
    expect(sandbox.requestCount('categories') - beforeDelete).toBe(2);
  });
});

describe('divisions', () => {
  let all: Division[];

  beforeAll(async () => {
    all = await client.listDivisions();
  });

  it('lists every division with its managers by default', async () => {
    expect(all.length).toBe(sandbox.dataset.divisions);
    expect(all.some((d) => (d.dirs ?? []).length > 0)).toBe(true);
    expect(all.every((d) => Array.isArray(d.dirs))).toBe(true);
  });

  it('filters by ids', async () => {
    const ids = all.slice(1, 3).map((d) => d.id);
    expect((await client.listDivisions({ ids })).map((d) => d.id).sort()).toEqual([...ids].sort());
    expect(await client.listDivisions({ ids: [] })).toEqual([]);
  });

  it('filters by nameLike, case-insensitively', async () => {
    const name = all[0]!.name;
    const part = name.slice(2, 6).toUpperCase();
    const found = await client.listDivisions({ nameLike: part });
    expect(found.map((d) => d.id)).toContain(all[0]!.id);
    expect(found.every((d) => d.name.toUpperCase().includes(part))).toBe(true);
  });

  it('filters by search over the name and the managers’ names', async () => {
    const withManager = all.find((d) => (d.dirs ?? []).length > 0)!;
    const lastName = withManager.dirs![0]!.lastName;
    const found = await client.listDivisions({ search: lastName });
    expect(found.map((d) => d.id)).toContain(withManager.id);
    expect(found.length).toBeLessThan(all.length);
  });

  it('filters by userId and businessDirId of a manager', async () => {
    const withManager = all.find((d) => (d.dirs ?? []).length > 0)!;
    const manager = withManager.dirs![0]!;
    expect((await client.listDivisions({ userId: manager.id })).map((d) => d.id)).toContain(withManager.id);
    const byDir = await client.listDivisions({ businessDirId: manager.businessDirId });
    expect(byDir.map((d) => d.id)).toContain(withManager.id);
    expect(byDir.every((d) => (d.dirs ?? []).some((m) => m.businessDirId === manager.businessDirId))).toBe(
      true,
    );
  });

  it('filters by shopId: the division of a shop seen in the report', async () => {
    const { rows } = await readAll(client);
    const row = finishedShiftSchema.parse(rows[0]);
    const found = await client.listDivisions({ shopId: row.shop_id });
    expect(found.map((d) => d.id)).toEqual([row.division_id]);
  });

  it('filters by active', async () => {
    const active = await client.listDivisions({ active: true });
    expect(active.every((d) => d.active)).toBe(true);
    expect(active.length).toBe(all.filter((d) => d.active).length);
    expect(active.length).toBeLessThan(all.length);
  });

  it('filters by withDirs (deprecated, still sent)', async () => {
    const withDirs = await client.listDivisions({ withDirs: true });
    expect(withDirs.every((d) => (d.dirs ?? []).length > 0)).toBe(true);
    expect(withDirs.length).toBeLessThan(all.length);
    expect(await client.listDivisions({ withDirs: false })).toHaveLength(all.length);
  });

  it('asks for extra members with fields, and keeps the members the spec does not list', async () => {
    const regions = await client.listDivisions({ fields: ['regions'] });
    expect(
      regions.every(
        (d) => d.dirs === undefined && Array.isArray((d as Division & { regions?: unknown }).regions),
      ),
    ).toBe(true);
    const withBusinessDirs = await client.listDivisions({ fields: ['dirsWithBusinessDirs'] });
    const manager = withBusinessDirs.flatMap((d) => d.dirs ?? [])[0] as { businessDir?: unknown } | undefined;
    expect(manager?.businessDir).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
    const bare = await client.listDivisions({ fields: [] });
    expect(bare.every((d) => d.dirs === undefined && !('regions' in d))).toBe(true);
  });

  it('gets one division, with and without fields', async () => {
    const one = all[0]!;
    expect(await client.getDivision(one.id)).toMatchObject({ id: one.id, name: one.name, dirs: one.dirs });
    const withRegions = (await client.getDivision(one.id, { fields: ['regions', 'dirs'] })) as Division & {
      regions?: unknown[];
    };
    expect(withRegions.regions?.length).toBe(one.regionsCount);
    expect(withRegions.dirs).toEqual(one.dirs);
  });

  it('reports an unknown division as a non-retryable 404', async () => {
    await expect(client.getDivision(987_654)).rejects.toMatchObject({
      code: 'WFM_HTTP_STATUS',
      status: 404,
      retryable: false,
    });
  });

  it('creates and updates a division', async () => {
    const created = await client.createDivision({ name: 'Division North-East', externalId: 'DIV-NE' });
    expect(created).toMatchObject({
      name: 'Division North-East',
      externalId: 'DIV-NE',
      active: true,
      regionsCount: 0,
      shopsCount: 0,
    });
    const updated = await client.updateDivision(created.id, { name: 'Division NE', active: false });
    expect(updated).toMatchObject({ id: created.id, name: 'Division NE', active: false });
    expect(await client.getDivision(created.id)).toMatchObject({ name: 'Division NE', active: false });
  });

  it('rejects an update without the required active flag before sending it', async () => {
    await expect(
      client.updateDivision(1, { name: 'x' } as { name: string; active: boolean }),
    ).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(client.getDivision(1.5)).rejects.toBeInstanceOf(InvalidRequestError);
  });
});

describe('the report', () => {
  it('reads every row of the report, in id order, as raw rows that match the spec', async () => {
    const { rows, ids } = await readAll(client, { window: undefined });
    expect(rows).toHaveLength(sandbox.dataset.rows);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const row of rows) expect(finishedShiftSchema.safeParse(row).success).toBe(true);
  });

  it('sends the time window as a start_time filter', async () => {
    const window = { startGte: '2024-03-10T00:00:00', startLt: '2024-03-12T06:30:00' };
    const all = (await readAll(client)).rows.map((r) => finishedShiftSchema.parse(r));
    const expected = all
      .filter((r) => r.start_time >= window.startGte && r.start_time < window.startLt)
      .map((r) => r.id);
    expect(expected.length).toBeGreaterThan(10);
    expect(expected.length).toBeLessThan(all.length);
    expect((await readAll(client, { window })).ids).toEqual(expected);
  });

  it('reads the whole report when the window template is empty', async () => {
    // Built by hand: loadWfmConfig reads WFM_WINDOW_QUERY='' as unset (the default template).
    const noFilter = new WfmClient({ ...testWfmConfig(sandbox.url), windowQuery: '' });
    try {
      const { rows } = await readAll(noFilter, {
        window: { startGte: '2024-03-10T00:00:00', startLt: '2024-03-11T00:00:00' },
      });
      expect(rows).toHaveLength(sandbox.dataset.rows);
    } finally {
      await noFilter.close();
    }
  });

  it('fills a custom window template', async () => {
    const custom = new WfmClient(
      testWfmConfig(sandbox.url, { WFM_WINDOW_QUERY: 'and=(start_time.gte.{from},start_time.lt.{to})' }),
    );
    const window = { startGte: '2024-03-10T00:00:00', startLt: '2024-03-11T00:00:00' };
    try {
      expect((await readAll(custom, { window })).ids).toEqual((await readAll(client, { window })).ids);
    } finally {
      await custom.close();
    }
  });

  it('reports its progress and every byte received', async () => {
    let bytes = 0;
    const progress: number[] = [];
    const { rows } = await readAll(client, {
      onBytes: (n) => (bytes += n),
      onProgress: (p) => progress.push(p.rows),
    });
    expect(progress.at(-1)).toBe(rows.length);
    expect(bytes).toBeGreaterThan(rows.length * 500);
    expect((await client.drainReport()).bytes).toBe(bytes);
  });
});

describe('authentication', () => {
  it('sends the bearer token on every call', async () => {
    await withToken('sandbox-admin', async (c) => {
      await expect(c.listCategories()).resolves.toBeDefined();
      await expect(c.listDivisions()).resolves.toBeDefined();
      await expect(readAll(c)).resolves.toBeDefined();
    });
  });

  it('fails with WFM_AUTH 401 for an unknown token, after one attempt, without the token in the error', async () => {
    const token = 'not-a-known-token-7c1d';
    const before = sandbox.requestCount('*');
    const errors = await withToken(token, (c) =>
      Promise.all([
        c.listCategories().catch((e: unknown) => e),
        c.getDivision(1).catch((e: unknown) => e),
        readAll(c).catch((e: unknown) => e),
      ]),
    );
    for (const error of errors) {
      expect(error).toMatchObject({ code: 'WFM_AUTH', status: 401, retryable: false, attempts: 1 });
      const e = error as Error & { details: unknown };
      expect(`${e.message} ${JSON.stringify(e.details)} ${JSON.stringify(e)}`).not.toContain(token);
    }
    expect(sandbox.requestCount('*') - before).toBe(3);
  });

  it('fails with WFM_AUTH 403 when the token lacks the role', async () => {
    await withToken(SANDBOX_NOROLE_TOKEN, async (c) => {
      await expect(readAll(c)).rejects.toMatchObject({ code: 'WFM_AUTH', status: 403, retryable: false });
      await expect(c.listCategories()).resolves.toBeDefined();
    });
    await withToken(SANDBOX_READER_TOKEN, async (c) => {
      await expect(c.createCategory({ name: 'n', active: true })).rejects.toMatchObject({
        code: 'WFM_AUTH',
        status: 403,
      });
      await expect(c.deleteCategory('x')).rejects.toMatchObject({
        code: 'WFM_AUTH',
        status: 403,
        attempts: 1,
      });
      await expect(readAll(c)).resolves.toBeDefined();
    });
  });

  it('treats a 401 or 403 injected in front of the service the same way', async () => {
    sandbox.setFaults({ divisions: { failNext: 1, errorStatus: 403 } });
    await expect(client.listDivisions()).rejects.toMatchObject({ code: 'WFM_AUTH', status: 403 });
  });
});

describe('retries of plain calls', () => {
  it.each([500, 502, 503, 504, 408] as const)('recovers from %i on a GET', async (status) => {
    const count = (await client.listDivisions()).length;
    sandbox.setFaults({ divisions: { failNext: 3, errorStatus: status } });
    const before = sandbox.requestCount('divisions');
    await expect(client.listDivisions()).resolves.toHaveLength(count);
    expect(sandbox.requestCount('divisions') - before).toBe(4);
  });

  it('fails with the status once attempts run out', async () => {
    sandbox.setFaults({ divisions: { failNext: 4, errorStatus: 503 } });
    await expect(client.listDivisions()).rejects.toMatchObject({
      code: 'WFM_HTTP_STATUS',
      status: 503,
      retryable: true,
      attempts: 4,
    });
  });

  it('recovers from a reset, a truncated and a stalled body', async () => {
    const quick = new WfmClient(testWfmConfig(sandbox.url, { WFM_BODY_TIMEOUT_MS: '200' }));
    const codes: string[] = [];
    const counting = new WfmClient(testWfmConfig(sandbox.url, { WFM_BODY_TIMEOUT_MS: '200' }), {
      onRetry: (e) => codes.push(e.error.code),
    });
    try {
      sandbox.setFaults({ categories: { resetAfterBytes: 100 } });
      await expect(counting.listCategories()).resolves.toHaveLength((await quick.listCategories()).length);
      sandbox.setFaults({ categories: { truncateAfterBytes: 100 } });
      await counting.listCategories();
      sandbox.setFaults({ categories: { stallAfterBytes: 100 } });
      await counting.listCategories();
      expect(codes).toEqual(['WFM_NETWORK', 'WFM_BODY_INVALID', 'WFM_TIMEOUT']);
    } finally {
      await quick.close();
      await counting.close();
    }
  });
});
