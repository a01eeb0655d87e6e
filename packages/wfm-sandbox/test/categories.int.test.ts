import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/index.js';
import { categorySchema, templateSchema, type Category } from 'wfm-contract/category';
import { startTestSandbox } from './support/test-sandbox.js';
import { call, get, json } from './support/sandbox-http.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 100 });
});

afterAll(async () => {
  await sandbox.close();
});

const list = async (query = ''): Promise<Category[]> => {
  const res = await get(sandbox, `/v1/survey/categories${query}`);
  expect(res.status).toBe(200);
  return json<unknown[]>(res).map((c) => categorySchema.parse(c));
};

describe('GET /v1/survey/categories', () => {
  it('lists generated categories with every Template field embedded', async () => {
    const categories = await list();
    expect(categories.length).toBeGreaterThanOrEqual(8);
    const templates = categories.flatMap((c) => c.templates);
    expect(templates.length).toBeGreaterThan(10);
    const templateKeys = Object.keys(templateSchema.shape).sort();
    for (const t of templates) expect(Object.keys(t).sort()).toEqual(templateKeys);
    for (const c of categories) {
      expect(c.templateIds).toEqual(c.templates.map((t) => t.id));
      expect(c.templates.every((t) => t.categoryId === c.id && t.categoryName === c.name)).toBe(true);
    }
  });

  it('filters on active', async () => {
    const all = await list();
    const active = await list('?active=true');
    const inactive = await list('?active=false');
    expect(active.every((c) => c.active)).toBe(true);
    expect(inactive.every((c) => !c.active)).toBe(true);
    expect(active.length + inactive.length).toBe(all.length);
    expect(inactive.length).toBeGreaterThan(0);
  });

  it('filters on quick: with at least one quick template, or with none', async () => {
    const quick = await list('?quick=true');
    const notQuick = await list('?quick=false');
    expect(quick.length).toBeGreaterThan(0);
    expect(quick.every((c) => c.templates.some((t) => t.quick))).toBe(true);
    expect(notQuick.every((c) => c.templates.every((t) => !t.quick))).toBe(true);
  });

  it('keeps only categories with templates when notEmpty=true, all of them by default', async () => {
    const all = await list();
    const notEmpty = await list('?notEmpty=true');
    expect(all.some((c) => c.templates.length === 0)).toBe(true);
    expect(notEmpty.every((c) => c.templates.length > 0)).toBe(true);
    expect(await list('?notEmpty=false')).toEqual(all);
    const combined = await list('?active=true&quick=true&notEmpty=true');
    expect(combined.every((c) => c.active && c.templates.some((t) => t.quick))).toBe(true);
  });

  it('refuses a boolean that is not true or false with 400', async () => {
    const res = await get(sandbox, '/v1/survey/categories?active=yes');
    expect(res.status).toBe(400);
    expect(json(res)).toEqual({ error: 'Bad Request', message: expect.stringContaining('active') });
  });
});

describe('category create, update and delete', () => {
  it('creates a category with empty templates and the given lists', async () => {
    const res = await call(sandbox, 'POST', '/v1/survey/categories', {
      body: { name: 'Новая, "категория"', active: false, unavailableIfGroupIds: [3, 4] },
    });
    expect(res.status).toBe(200);
    const created = categorySchema.parse(json(res));
    expect(created).toMatchObject({
      name: 'Новая, "категория"',
      active: false,
      tenant: 'sandbox',
      templateIds: [],
      templates: [],
      unavailableIfBusinessDirIds: null,
      unavailableIfGroupIds: [3, 4],
      unavailableIfUserIds: null,
    });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    expect((await list()).some((c) => c.id === created.id)).toBe(true);
  });

  it('updates every member, keeps the templates and renames them', async () => {
    const withTemplates = (await list('?notEmpty=true'))[0];
    if (withTemplates === undefined) throw new Error('no category with templates');
    const res = await call(sandbox, 'PUT', `/v1/survey/categories/${withTemplates.id}`, {
      body: { name: 'Renamed', active: true, unavailableIfUserIds: [7] },
    });
    expect(res.status).toBe(200);
    const updated = categorySchema.parse(json(res));
    expect(updated).toMatchObject({
      id: withTemplates.id,
      name: 'Renamed',
      unavailableIfUserIds: [7],
      unavailableIfGroupIds: null,
    });
    expect(updated.templateIds).toEqual(withTemplates.templateIds);
    expect(updated.templates.every((t) => t.categoryName === 'Renamed')).toBe(true);
  });

  it('deletes a category with an empty JSON object, then answers 404 for it', async () => {
    const created = json<Category>(
      await call(sandbox, 'POST', '/v1/survey/categories', { body: { name: 'tmp', active: true } }),
    );
    const res = await call(sandbox, 'DELETE', `/v1/survey/categories/${created.id}`);
    expect(res.status).toBe(200);
    expect(json(res)).toEqual({});
    expect((await list()).some((c) => c.id === created.id)).toBe(false);
    expect((await call(sandbox, 'DELETE', `/v1/survey/categories/${created.id}`)).status).toBe(404);
  });

  it('accepts a DELETE that declares a JSON body but sends none', async () => {
    const created = json<Category>(
      await call(sandbox, 'POST', '/v1/survey/categories', { body: { name: 'tmp2', active: true } }),
    );
    const res = await call(sandbox, 'DELETE', `/v1/survey/categories/${created.id}`, {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
  });

  it('answers 404 for an unknown id on update', async () => {
    const res = await call(sandbox, 'PUT', '/v1/survey/categories/000000000000000000000000', {
      body: { name: 'x', active: true },
    });
    expect(res.status).toBe(404);
    expect(json(res)).toEqual({
      error: 'Not Found',
      message: expect.stringContaining('000000000000000000000000'),
    });
  });

  it('refuses bodies that break the spec’s rules with 400', async () => {
    const bad = [
      { active: true },
      { name: 'x' },
      { name: 1, active: true },
      { name: 'x', active: 'yes' },
      { name: 'x', active: true, unavailableIfUserIds: ['1'] },
      { name: 'x', active: true, colour: 'red' },
      '{not json',
      '',
    ];
    for (const body of bad) {
      for (const [method, path] of [
        ['POST', '/v1/survey/categories'],
        ['PUT', `/v1/survey/categories/${(await list())[0]?.id ?? 'x'}`],
      ] as const) {
        const res = await call(sandbox, method, path, { body });
        expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(400);
        expect(json(res)).toMatchObject({ error: 'Bad Request', message: expect.any(String) });
      }
    }
  });
});
