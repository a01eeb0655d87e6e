import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/index.js';
import {
  SANDBOX_ADMIN_TOKEN,
  SANDBOX_NOROLE_TOKEN,
  SANDBOX_READER_TOKEN,
  startTestSandbox,
} from './support/test-sandbox.js';
import { call, get, json } from './support/sandbox-http.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 100 });
});

afterAll(async () => {
  await sandbox.close();
});

const ENDPOINTS = [
  ['GET', '/v1/survey/categories'],
  ['POST', '/v1/survey/categories'],
  ['PUT', '/v1/survey/categories/x'],
  ['DELETE', '/v1/survey/categories/x'],
  ['GET', '/v1/orgstruct/divisions'],
  ['GET', '/v1/orgstruct/divisions/1'],
  ['POST', '/v1/orgstruct/divisions'],
  ['PUT', '/v1/orgstruct/divisions/1'],
  ['GET', '/v1/connector/rpc/wfm_timers'],
] as const;

describe('sandbox authentication', () => {
  it('answers 401 with {error, message} and WWW-Authenticate on every endpoint without a token', async () => {
    for (const [method, path] of ENDPOINTS) {
      const res = await call(sandbox, method, path, { token: null });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(json(res)).toEqual({ error: 'Unauthorized', message: expect.stringContaining('Authorization') });
    }
  });

  it('answers 401 to an unknown token and to a header that is not Bearer', async () => {
    expect((await get(sandbox, '/v1/orgstruct/divisions', { token: 'stolen' })).status).toBe(401);
    const basic = await get(sandbox, '/v1/orgstruct/divisions', {
      token: null,
      headers: { authorization: `Basic ${SANDBOX_ADMIN_TOKEN}` },
    });
    expect(basic.status).toBe(401);
  });

  it('needs ROLE_SURVEY_ADMIN for category writes, ROLE_ORGSTRUCT_ADMIN for division writes and ROLE_WFM_REPORTS for the report', async () => {
    const body = { name: 'n', active: true };
    for (const token of [SANDBOX_READER_TOKEN, SANDBOX_NOROLE_TOKEN]) {
      for (const [method, path] of ENDPOINTS.filter(([m]) => m !== 'GET')) {
        const res = await call(sandbox, method, path, { token, body });
        expect(res.status, `${token} ${method} ${path}`).toBe(403);
        expect(json(res)).toMatchObject({ error: 'Forbidden', message: expect.stringMatching(/ROLE_/) });
      }
    }
    expect(
      (await get(sandbox, '/v1/connector/rpc/wfm_timers?limit=1', { token: SANDBOX_NOROLE_TOKEN })).status,
    ).toBe(403);
    expect(
      (await get(sandbox, '/v1/connector/rpc/wfm_timers?limit=1', { token: SANDBOX_READER_TOKEN })).status,
    ).toBe(200);
  });

  it('lets any valid token read categories and divisions', async () => {
    for (const token of [SANDBOX_ADMIN_TOKEN, SANDBOX_READER_TOKEN, SANDBOX_NOROLE_TOKEN]) {
      expect((await get(sandbox, '/v1/survey/categories', { token })).status).toBe(200);
      expect((await get(sandbox, '/v1/orgstruct/divisions/1', { token })).status).toBe(200);
    }
  });

  it('checks the token before the body and the id', async () => {
    const res = await call(sandbox, 'POST', '/v1/orgstruct/divisions', {
      token: SANDBOX_READER_TOKEN,
      body: '{bad json',
    });
    expect(res.status).toBe(403);
    expect((await get(sandbox, '/v1/orgstruct/divisions/999999', { token: null })).status).toBe(401);
  });

  it('answers unknown routes with 404 in the same error shape', async () => {
    const res = await get(sandbox, '/v2/anything');
    expect(res.status).toBe(404);
    expect(json(res)).toEqual({ error: 'Not Found', message: 'no route for GET /v2/anything' });
  });
});

describe('sandbox with its own tokens', () => {
  it('accepts only the configured tokens with their roles', async () => {
    const custom = await startTestSandbox({ rows: 10, tokens: { 'ci-token': ['ROLE_WFM_REPORTS'] } });
    try {
      expect((await get(custom, '/v1/connector/rpc/wfm_timers', { token: 'ci-token' })).status).toBe(200);
      expect((await get(custom, '/v1/connector/rpc/wfm_timers', { token: SANDBOX_ADMIN_TOKEN })).status).toBe(
        401,
      );
      expect(
        (await call(custom, 'POST', '/v1/survey/categories', { token: 'ci-token', body: {} })).status,
      ).toBe(403);
    } finally {
      await custom.close();
    }
  });
});
