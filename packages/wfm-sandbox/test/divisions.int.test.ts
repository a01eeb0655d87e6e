import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/index.js';
import { divisionManagerSchema, divisionSchema, type Division } from 'wfm-contract/division';
import { startTestSandbox } from './support/test-sandbox.js';
import { call, get, json } from './support/sandbox-http.js';

interface DivisionWithExtras extends Division {
  regions?: { id: number; externalId: string; name: string; active: boolean; shopsCount: number }[];
  dirs?: (Division['dirs'] extends (infer M)[] | undefined
    ? M & { businessDir?: { id: number; name: string } }
    : never)[];
}

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 500 });
});

afterAll(async () => {
  await sandbox.close();
});

const list = async (query = ''): Promise<DivisionWithExtras[]> => {
  const res = await get(sandbox, `/v1/orgstruct/divisions${query}`);
  expect(res.status, res.text).toBe(200);
  const divisions = json<DivisionWithExtras[]>(res);
  for (const d of divisions) divisionSchema.parse(d);
  return divisions;
};

const ids = (divisions: readonly Division[]): number[] => divisions.map((d) => d.id);

describe('GET /v1/orgstruct/divisions', () => {
  it('lists divisions with their managers (dirs) by default, every manager field present', async () => {
    const divisions = await list();
    expect(divisions.length).toBeGreaterThanOrEqual(6);
    const managers = divisions.flatMap((d) => d.dirs ?? []);
    expect(divisions.every((d) => Array.isArray(d.dirs))).toBe(true);
    expect(managers.length).toBeGreaterThan(0);
    for (const m of managers) {
      expect(divisionManagerSchema.strict().safeParse(m).success).toBe(true);
      expect(m.level).toBe('DIVISION');
      expect(m.lang).toMatch(/^[a-z]{2}_[A-Z]{2}$/);
    }
    expect(divisions.some((d) => d.regionsCount > 0 && d.shopsCount > d.regionsCount)).toBe(true);
    // Every manager can be mailed but three: one inactive, one who never accepted the invite, one
    // whose login is not an address; one first name carries a line break (generate-world.ts).
    const mailable = managers.filter(
      (m) => m.active && m.inviteAccepted && /^[^@\s]+@[^@\s]+$/.test(m.login),
    );
    expect(managers.length - mailable.length).toBe(3);
    expect(managers.filter((m) => /\r\n/.test(m.firstName))).toHaveLength(1);
  });

  it('filters on ids, comma-separated or repeated', async () => {
    expect(ids(await list('?ids=2,4'))).toEqual([2, 4]);
    expect(ids(await list('?ids=2&ids=5'))).toEqual([2, 5]);
    expect(await list('?ids=99999')).toEqual([]);
  });

  it('finds by nameLike, case-insensitively', async () => {
    const found = await list('?nameLike=DIVISION%20A');
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((d) => d.name.toLowerCase().includes('division a'))).toBe(true);
    expect(ids(await list('?nameLike=%D1%86%D0%B5%D0%BD%D1%82%D1%80'))).toEqual([1]);
  });

  it('finds by search in the name or a manager’s first or last name', async () => {
    const all = await list();
    const withManager = all.find((d) => (d.dirs?.length ?? 0) > 0);
    const manager = withManager?.dirs?.[0];
    if (withManager === undefined || manager === undefined) throw new Error('no managers');
    const byLastName = await list(`?search=${encodeURIComponent(manager.lastName.toUpperCase())}`);
    expect(ids(byLastName)).toContain(withManager.id);
    expect(
      byLastName.every(
        (d) =>
          d.name.toLowerCase().includes(manager.lastName.toLowerCase()) ||
          d.dirs?.some(
            (m) =>
              m.lastName === manager.lastName ||
              m.firstName.toLowerCase().includes(manager.lastName.toLowerCase()),
          ),
      ),
    ).toBe(true);
    expect(ids(await list('?search=Americas'))).toEqual(ids(all.filter((d) => d.name.includes('Americas'))));
  });

  it('finds by userId (a manager or a user of a shop), businessDirId and shopId', async () => {
    const all = await list('?fields=dirs,regions');
    const withManager = all.find((d) => (d.dirs?.length ?? 0) > 0);
    const manager = withManager?.dirs?.[0];
    if (withManager === undefined || manager === undefined) throw new Error('no managers');
    expect(ids(await list(`?userId=${manager.id}`))).toEqual([withManager.id]);
    const byDir = await list(`?businessDirId=${manager.businessDirId}`);
    expect(ids(byDir)).toContain(withManager.id);
    expect(byDir.every((d) => d.dirs?.some((m) => m.businessDirId === manager.businessDirId))).toBe(true);

    const rows = json<{ shop_id: number; division_id: number; user_id: number }[]>(
      await get(sandbox, '/v1/connector/rpc/wfm_timers?select=shop_id,division_id,user_id&limit=20'),
    );
    for (const r of rows) {
      expect(ids(await list(`?shopId=${r.shop_id}`))).toEqual([r.division_id]);
      expect(ids(await list(`?userId=${r.user_id}`)).length).toBeGreaterThan(0);
    }
    expect(await list('?shopId=1')).toEqual([]);
  });

  it('filters on active and withDirs', async () => {
    const all = await list();
    const active = await list('?active=true');
    const inactive = await list('?active=false');
    expect(active.length + inactive.length).toBe(all.length);
    expect(inactive.length).toBeGreaterThan(0);
    expect(inactive.every((d) => !d.active)).toBe(true);
    const withDirs = await list('?withDirs=true');
    expect(withDirs.length).toBeLessThan(all.length);
    expect(withDirs.every((d) => (d.dirs?.length ?? 0) > 0)).toBe(true);
    expect(ids(await list('?withDirs=false'))).toEqual(ids(all));
  });

  it('chooses the extra members with fields: dirs, dirsWithBusinessDirs, regions, or none', async () => {
    const regionsOnly = await list('?fields=regions');
    expect(regionsOnly.every((d) => d.dirs === undefined && Array.isArray(d.regions))).toBe(true);
    for (const d of regionsOnly) {
      expect(d.regions?.length).toBe(d.regionsCount);
      expect(d.regions?.reduce((n, r) => n + r.shopsCount, 0)).toBe(d.shopsCount);
    }
    const withBusinessDirs = await list('?fields=dirsWithBusinessDirs');
    const managers = withBusinessDirs.flatMap((d) => d.dirs ?? []);
    expect(managers.length).toBeGreaterThan(0);
    expect(
      managers.every((m) => m.businessDir?.id === m.businessDirId && typeof m.businessDir.name === 'string'),
    ).toBe(true);
    const bare = await list('?fields=');
    expect(bare.every((d) => d.dirs === undefined && d.regions === undefined)).toBe(true);
    const both = await list('?fields=dirs,regions');
    expect(both.every((d) => d.dirs !== undefined && d.regions !== undefined)).toBe(true);
  });

  it('refuses unknown fields values and malformed numbers with 400', async () => {
    for (const query of [
      '?fields=shops',
      '?ids=1,x',
      '?userId=abc',
      '?shopId=1.5',
      '?businessDirId=',
      '?active=1',
      '?withDirs=TRUE',
    ]) {
      const res = await get(sandbox, `/v1/orgstruct/divisions${query}`);
      expect(res.status, query).toBe(400);
      expect(json(res)).toMatchObject({ error: 'Bad Request' });
    }
  });
});

describe('GET /v1/orgstruct/divisions/:id', () => {
  it('returns one division with dirs by default and honours fields', async () => {
    const one = json<DivisionWithExtras>(await get(sandbox, '/v1/orgstruct/divisions/1'));
    expect(one).toMatchObject({ id: 1, externalId: 'DIV-CENTER' });
    expect(Array.isArray(one.dirs)).toBe(true);
    const withRegions = json<DivisionWithExtras>(
      await get(sandbox, '/v1/orgstruct/divisions/1?fields=regions'),
    );
    expect(withRegions.dirs).toBeUndefined();
    expect(withRegions.regions?.length).toBe(one.regionsCount);
  });

  it('answers 404 for an unknown id and 400 for an id that is not a number', async () => {
    expect((await get(sandbox, '/v1/orgstruct/divisions/4242')).status).toBe(404);
    expect((await get(sandbox, '/v1/orgstruct/divisions/abc')).status).toBe(400);
    expect((await get(sandbox, '/v1/orgstruct/divisions/1?fields=nope')).status).toBe(400);
  });
});

describe('division create and update', () => {
  it('creates a division with no regions or shops, active by default', async () => {
    const res = await call(sandbox, 'POST', '/v1/orgstruct/divisions', {
      body: { name: 'Дивизион «Юг»', externalId: 'DIV-S' },
    });
    expect(res.status).toBe(200);
    const created = json<DivisionWithExtras>(res);
    expect(created).toMatchObject({
      name: 'Дивизион «Юг»',
      externalId: 'DIV-S',
      active: true,
      regionsCount: 0,
      shopsCount: 0,
      dirs: [],
    });
    expect(ids(await list())).toContain(created.id);
    const plain = json<Division>(
      await call(sandbox, 'POST', '/v1/orgstruct/divisions', { body: { name: 'Plain', active: false } }),
    );
    expect(plain).toMatchObject({ externalId: null, active: false });
  });

  it('updates name and active, keeps externalId when omitted, and renames the division in the report', async () => {
    const res = await call(sandbox, 'PUT', '/v1/orgstruct/divisions/1', {
      body: { name: 'Центр, "новый"', active: false },
    });
    expect(res.status).toBe(200);
    expect(json(res)).toMatchObject({
      id: 1,
      name: 'Центр, "новый"',
      active: false,
      externalId: 'DIV-CENTER',
    });
    const rows = json<{ division_name: string }[]>(
      await get(sandbox, '/v1/connector/rpc/wfm_timers?division_id=eq.1&select=division_name&limit=5'),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.division_name === 'Центр, "новый"')).toBe(true);
    const cleared = json<Division>(
      await call(sandbox, 'PUT', '/v1/orgstruct/divisions/1', {
        body: { name: 'Центр', active: true, externalId: null },
      }),
    );
    expect(cleared.externalId).toBeNull();
  });

  it('answers 404 for an unknown id and 400 for bodies that break the rules', async () => {
    expect(
      (await call(sandbox, 'PUT', '/v1/orgstruct/divisions/4242', { body: { name: 'x', active: true } }))
        .status,
    ).toBe(404);
    const bad: [string, string, unknown][] = [
      ['POST', '/v1/orgstruct/divisions', { active: true }],
      ['POST', '/v1/orgstruct/divisions', { name: 'x', shops: 3 }],
      ['POST', '/v1/orgstruct/divisions', { name: 'x', externalId: 5 }],
      ['PUT', '/v1/orgstruct/divisions/1', { name: 'x' }],
      ['PUT', '/v1/orgstruct/divisions/1', { name: 'x', active: 'no' }],
      ['PUT', '/v1/orgstruct/divisions/1', '[1,2'],
    ];
    for (const [method, path, body] of bad) {
      const res = await call(sandbox, method as 'POST' | 'PUT', path, { body });
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(400);
    }
  });
});
