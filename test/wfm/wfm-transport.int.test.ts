// The client against a hand-written hostile HTTP server on 127.0.0.1, for what the sandbox does not
// do: echo the token back, send endless or malformed bodies, lie about Content-Length, never
// answer. Also: one keep-alive connection for many calls, and the token in no error.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WfmError } from '../../src/wfm/wfm-error.js';
import { MAX_JSON_BYTES, WfmClient } from '../../src/wfm/wfm-client.js';
import { FakeClock } from './fake-clock.js';
import { readAll, readUntilError, testWfmConfig } from './wfm-test-support.js';

const TOKEN = 'eyJhbGciOi.SECRET-7d3f.signature';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let url: string;
const connections = new Set<Socket>();
let connectionCount = 0;

/** Everything a caller could log or show about an error, causes included. */
function everythingAbout(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    parts.push(current.message, String(current.stack), JSON.stringify(current));
    if (current instanceof WfmError) parts.push(JSON.stringify(current.details), current.toOneLine());
    current = current.cause;
  }
  return parts.join('\n');
}

function client(env: Parameters<typeof testWfmConfig>[1] = {}): WfmClient {
  return new WfmClient(testWfmConfig(url, { WFM_TOKEN: TOKEN, ...env }), { clock: new FakeClock() });
}

async function using<T>(c: WfmClient, run: (c: WfmClient) => Promise<T>): Promise<T> {
  try {
    return await run(c);
  } finally {
    await c.close();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const handler = routes.get(path);
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not Found"}');
      return;
    }
    handler(req, res);
  });
  server.on('connection', (socket: Socket) => {
    connectionCount++;
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of connections) socket.destroy();
  server.close();
  await once(server, 'close');
});

describe('the token', () => {
  it('appears in no error, even when the upstream echoes it in every answer', async () => {
    const echo =
      (status: number, headers: Record<string, string> = {}): Handler =>
      (req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(`{"error":"nope","youSent":"${req.headers.authorization ?? ''}", "token": "${TOKEN}"}`);
      };
    const cases: Array<[string, Handler, (c: WfmClient) => Promise<unknown>]> = [
      ['401', echo(401), (c) => c.listCategories()],
      ['403', echo(403), (c) => c.listCategories()],
      ['400', echo(400), (c) => c.listCategories()],
      ['503', echo(503, { 'retry-after': TOKEN }), (c) => c.listCategories()],
      [
        'not JSON',
        (req, res) => res.end(`<html>${req.headers.authorization ?? ''}</html>`),
        (c) => c.listCategories(),
      ],
      [
        'schema',
        (req, res) => res.end(JSON.stringify([{ id: req.headers.authorization }])),
        (c) => c.listCategories(),
      ],
      [
        'report not an array',
        (req, res) => res.end(`{"auth":"${req.headers.authorization ?? ''}"}`),
        (c) => readAll(c),
      ],
      [
        'report malformed',
        (req, res) => res.end(`[{"id":1},{"auth":${req.headers.authorization ?? ''}}]`),
        (c) => readAll(c),
      ],
      [
        'report garbage',
        (req, res) => res.end(`[{"id":1}] ${req.headers.authorization ?? ''}`),
        (c) => readAll(c),
      ],
    ];
    for (const [name, handler, call] of cases) {
      routes.set('/v1/survey/categories', handler);
      routes.set('/v1/connector/rpc/wfm_timers', handler);
      const error = await using(client(), (c) => call(c).catch((e: unknown) => e));
      expect(error, name).toBeInstanceOf(WfmError);
      expect(everythingAbout(error), name).not.toContain('SECRET');
    }
  });

  it('is sent as a bearer token on every request', async () => {
    const seen: Array<string | undefined> = [];
    routes.set('/v1/survey/categories', (req, res) => {
      seen.push(req.headers.authorization);
      res.end('[]');
    });
    await using(client(), async (c) => {
      await c.listCategories();
      await c.listCategories({ active: true });
    });
    expect(seen).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });
});

describe('connections', () => {
  it('keeps its connections alive across calls, error answers included', async () => {
    routes.set('/v1/survey/categories', (req, res) => {
      if ((req.url ?? '').includes('active=false'))
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"x"}');
      else res.end('[]');
    });
    const before = connectionCount;
    await using(client(), async (c) => {
      for (let i = 0; i < 10; i++) {
        await c.listCategories();
        await c.listCategories({ active: false }).catch(() => undefined);
      }
    });
    // Not one per call: a second connection may open while undici still marks the first busy.
    expect(connectionCount - before).toBeLessThanOrEqual(2);
  });

  it('fails with WFM_NETWORK when nothing listens, after every attempt', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const c = new WfmClient(testWfmConfig(`http://127.0.0.1:${port}`, { WFM_TOKEN: TOKEN }), {
      clock: new FakeClock(),
    });
    await using(c, async () => {
      await expect(c.listCategories()).rejects.toMatchObject({
        code: 'WFM_NETWORK',
        retryable: true,
        attempts: 4,
      });
    });
  });

  it('fails with WFM_TIMEOUT when the headers never come', async () => {
    routes.set('/v1/survey/categories', () => undefined); // never answers
    await using(client({ WFM_HEADERS_TIMEOUT_MS: '100', WFM_RETRY_ATTEMPTS: '2' }), async (c) => {
      await expect(c.listCategories()).rejects.toMatchObject({
        code: 'WFM_TIMEOUT',
        details: expect.objectContaining({ phase: 'headers' }),
        attempts: 2,
      });
    });
  });

  it('reports a body shorter than its Content-Length as WFM_BODY_TRUNCATED', async () => {
    routes.set('/v1/survey/categories', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('[{"id":"1"');
      setImmediate(() => res.socket?.destroy());
    });
    await using(client({ WFM_RETRY_ATTEMPTS: '1' }), async (c) => {
      const error = await c.listCategories().catch((e: unknown) => e);
      expect(error).toMatchObject({ retryable: true });
      expect(['WFM_BODY_TRUNCATED', 'WFM_NETWORK']).toContain((error as WfmError).code);
    });
  });

  it('uses the path of WFM_BASE_URL as a prefix', async () => {
    routes.set('/api/v1/survey/categories', (_req, res) => res.end('[]'));
    const c = new WfmClient(testWfmConfig(`${url}/api/`, { WFM_TOKEN: TOKEN }));
    await using(c, async () => expect(await c.listCategories()).toEqual([]));
  });
});

describe('hostile bodies', () => {
  it('stops an endless report body at WFM_MAX_BODY_BYTES', async () => {
    let closedByClient!: Promise<unknown>;
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      closedByClient = once(res, 'close');
      const row = Buffer.from(`{"id":1,"comment":"${'x'.repeat(1000)}"},`);
      res.write('[');
      const pump = (): void => {
        while (!res.destroyed && res.write(row));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await using(client({ WFM_MAX_BODY_BYTES: '2000000' }), async (c) => {
      const { error } = await readUntilError(c);
      expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false, attempts: 1 });
    });
    await closedByClient; // the client hung up: the test would time out otherwise
  });

  it('stops an endless single row at WFM_MAX_ROW_BYTES', async () => {
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"id":1},{"id":2,"comment":"');
      const filler = Buffer.alloc(64 * 1024, 'y');
      const pump = (): void => {
        while (!res.destroyed && res.write(filler));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await using(client({ WFM_MAX_ROW_BYTES: '1000000' }), async (c) => {
      const { error } = await readUntilError(c);
      expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false });
      expect((error as WfmError).message).toContain('WFM_MAX_ROW_BYTES');
    });
  });

  it.each([
    ['an object instead of an array', '{"rows":[]}', 'WFM_BODY_INVALID'],
    ['garbage after the array', '[{"id":1}] trailing', 'WFM_BODY_INVALID'],
    ['a malformed row', '[{"id":1},{"id":2,}]', 'WFM_BODY_INVALID'],
    ['a body that stops before "]"', '[{"id":1},{"id":2}', 'WFM_BODY_TRUNCATED'],
    ['an empty body', '', 'WFM_BODY_TRUNCATED'],
  ])('rejects %s as %s, retryable, after every attempt', async (_name, body, code) => {
    let requests = 0;
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await using(client({ WFM_RETRY_ATTEMPTS: '2' }), async (c) => {
      await expect(readAll(c)).rejects.toMatchObject({ code, retryable: true, attempts: 2 });
    });
    expect(requests).toBe(2);
  });

  it('rejects a JSON answer that does not match the spec as WFM_RESPONSE_INVALID, not retried', async () => {
    let requests = 0;
    routes.set('/v1/orgstruct/divisions/5', (_req, res) => {
      requests++;
      res.end('{"id":5,"name":"x"}');
    });
    await using(client(), async (c) => {
      const error = await c.getDivision(5).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'WFM_RESPONSE_INVALID', retryable: false, status: 200 });
      expect((error as Error).message).toContain('active');
    });
    expect(requests).toBe(1);
  });

  it('reads Retry-After as an HTTP-date from the upstream', async () => {
    const clock = new FakeClock(Date.parse('2024-05-01T12:00:00Z'));
    let requests = 0;
    routes.set('/v1/survey/categories', (_req, res) => {
      if (requests++ === 0) res.writeHead(503, { 'retry-after': 'Wed, 01 May 2024 12:00:04 GMT' }).end();
      else res.end('[]');
    });
    const c = new WfmClient(testWfmConfig(url, { WFM_TOKEN: TOKEN, WFM_RETRY_MAX_DELAY_MS: '60000' }), {
      clock,
    });
    await using(c, async () => expect(await c.listCategories()).toEqual([]));
    expect(clock.sleeps).toEqual([4000]);
  });

  it('accepts more rows than Content-Range announced, but not fewer', async () => {
    routes.set('/v1/connector/rpc/wfm_timers', (req, res) => {
      const more = (req.url ?? '').includes('id=gt.') ? '[{"id":3}]' : '[{"id":1},{"id":1},{"id":2}]';
      res.writeHead(200, { 'content-type': 'application/json', 'content-range': '0-1/2' }).end(more);
    });
    await using(client(), async (c) => expect((await readAll(c)).ids).toEqual([1, 1, 2]));
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-range': '0-1/3' })
        .end('[{"id":1},{"id":2}]');
    });
    await using(client({ WFM_RETRY_ATTEMPTS: '1' }), async (c) => {
      await expect(readAll(c)).rejects.toMatchObject({
        code: 'WFM_INCOMPLETE',
        details: expect.objectContaining({ expectedRows: 3, receivedRows: 2 }),
      });
    });
  });

  it('refuses to resume a read whose ids went down, instead of losing rows', async () => {
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"id":5},{"id":3},');
      setImmediate(() => res.socket?.destroy());
    });
    const c = new WfmClient(testWfmConfig(url, { WFM_TOKEN: TOKEN }), {
      clock: new FakeClock(),
      reportBatchBytes: 1,
    });
    await using(c, async () => {
      const { rows, error } = await readUntilError(c);
      expect(rows).toEqual([{ id: 5 }, { id: 3 }]);
      expect(error).toMatchObject({ code: 'WFM_RESUME_UNSAFE', retryable: true });
    });
  });

  it('holds back rows without a readable id until a later id shows where they stand', async () => {
    const queries: string[] = [];
    routes.set('/v1/connector/rpc/wfm_timers', (req, res) => {
      const query = decodeURIComponent((req.url ?? '').split('?')[1] ?? '');
      queries.push(query);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!query.includes('id=gt.')) {
        res.write('[{"id":1},{"id":"two"},{"id":null},');
        setImmediate(() => res.socket?.destroy());
      } else res.end('[{"id":"two"},{"id":null},{"id":3},{"x":1}]');
    });
    const c = new WfmClient(testWfmConfig(url, { WFM_TOKEN: TOKEN }), {
      clock: new FakeClock(),
      reportBatchBytes: 1,
    });
    await using(c, async () => {
      const rows: unknown[] = [];
      for await (const batch of c.readShifts()) rows.push(...batch);
      expect(rows).toEqual([{ id: 1 }, { id: 'two' }, { id: null }, { id: 3 }, { x: 1 }]);
    });
    expect(queries).toEqual(['order=id.asc', 'order=id.asc&id=gt.1']);
  });
});

describe('compression', () => {
  it('asks for gzip, deflate and br, or for identity with WFM_COMPRESSION=false', async () => {
    const seen: Array<string | undefined> = [];
    routes.set('/v1/survey/categories', (req, res) => {
      seen.push(req.headers['accept-encoding']);
      res.end('[]');
    });
    await using(client(), (c) => c.listCategories());
    await using(client({ WFM_COMPRESSION: 'false' }), (c) => c.listCategories());
    expect(seen).toEqual(['gzip, deflate, br', 'identity']);
  });

  it('decodes a gzip answer of any endpoint', async () => {
    routes.set('/v1/survey/categories', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync('[]'));
    });
    await using(client(), async (c) => expect(await c.listCategories()).toEqual([]));
  });

  it('stops a small gzip body that inflates past WFM_MAX_BODY_BYTES, inflating no more than it reads', async () => {
    // ~64 MB of rows in ~100 KB of gzip: a decompression bomb for a 4 MB limit.
    const bomb = gzipSync(Buffer.from(`[${'{"id":1},'.repeat(7_000_000)}{"id":2}]`));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    let decoded = 0;
    await using(client({ WFM_MAX_BODY_BYTES: String(4 * 1024 * 1024) }), async (c) => {
      const { error } = await readUntilError(c, { onBytes: (n) => (decoded += n) });
      expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false });
      expect((error as Error).message).toContain('WFM_MAX_BODY_BYTES=4194304 once decoded (gzip');
    });
    // The decoder stopped at the limit: at most one decoded chunk (64 KiB) past it.
    expect(decoded).toBeLessThanOrEqual(4 * 1024 * 1024 + 64 * 1024);
  });

  it('stops a small gzip division list that inflates past what a JSON answer may hold', async () => {
    const bomb = gzipSync(Buffer.from(`[${'{"id":1,"name":"x"},'.repeat(3_600_000)}{"id":2,"name":"y"}]`));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    routes.set('/v1/orgstruct/divisions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    await using(client(), async (c) => {
      const error = await c.listDivisions({}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false });
      expect((error as Error).message).toContain(`longer than ${MAX_JSON_BYTES} bytes once decoded`);
    });
  });

  it('stops a gzip row that inflates past WFM_MAX_ROW_BYTES', async () => {
    const bomb = gzipSync(Buffer.from(`[{"id":1},{"id":2,"comment":"${'y'.repeat(50_000_000)}"}]`));
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    await using(client({ WFM_MAX_ROW_BYTES: '1000000' }), async (c) => {
      const { error } = await readUntilError(c);
      expect(error).toMatchObject({ code: 'WFM_BODY_TOO_LARGE', retryable: false });
      expect((error as Error).message).toContain('WFM_MAX_ROW_BYTES=1000000');
    });
  });

  it.each([
    [
      'a gzip stream cut short (the HTTP body ends cleanly)',
      'cut',
      'WFM_BODY_TRUNCATED',
      /ended before its end/,
    ],
    [
      'bytes that are not gzip at all',
      'garbage',
      'WFM_BODY_INVALID',
      /gzip stream is corrupt \(Z_DATA_ERROR/,
    ],
  ] as const)('fails %s with %s, retryable', async (_name, kind, code, message) => {
    const whole = gzipSync(Buffer.from(`[${'{"id":1},'.repeat(10_000)}{"id":2}]`));
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(kind === 'cut' ? whole.subarray(0, whole.length / 2) : Buffer.from('{"not":"gzip"}'));
    });
    await using(client({ WFM_RETRY_ATTEMPTS: '1' }), async (c) => {
      const { error } = await readUntilError(c);
      expect(error).toMatchObject({ code, retryable: true });
      expect((error as Error).message).toMatch(message);
    });
  });

  it('quotes what arrived on one line, control characters escaped, the token redacted', async () => {
    routes.set('/v1/connector/rpc/wfm_timers', (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`\u001b[2J\u0007oops\r\n${req.headers.authorization ?? ''}\u0000 done`);
    });
    await using(client({ WFM_RETRY_ATTEMPTS: '1' }), async (c) => {
      const { error } = await readUntilError(c);
      const line = (error as WfmError).toOneLine();
      expect(line).toContain(
        'Content-Type text/plain, Content-Encoding (none), body starting "\\u{1b}[2J\\u{7}oops Bearer ***\\u{0} done"',
      );
      // eslint-disable-next-line no-control-regex
      expect(line).not.toMatch(/[\u0000-\u001f]/);
      expect(everythingAbout(error)).not.toContain('SECRET');
    });
  });
});

describe('the read deadline', () => {
  it('aborts a body that trickles forever and closes its socket', async () => {
    let closedByClient!: Promise<unknown>;
    routes.set('/v1/connector/rpc/wfm_timers', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      closedByClient = once(res, 'close');
      res.write('[');
      const drip = setInterval(() => res.write(' '), 20);
      res.once('close', () => clearInterval(drip));
    });
    await using(client({ WFM_READ_DEADLINE_MS: '400', WFM_RETRY_ATTEMPTS: '1' }), async (c) => {
      const { error } = await readUntilError(c);
      expect(error).toMatchObject({
        code: 'WFM_TIMEOUT',
        retryable: true,
        details: expect.objectContaining({ phase: 'deadline' }),
      });
    });
    await closedByClient; // the client hung up: the test would time out otherwise
  });

  it('also bounds a JSON call whose body trickles', async () => {
    routes.set('/v1/survey/categories', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const drip = setInterval(() => res.write(' '), 20);
      res.once('close', () => clearInterval(drip));
    });
    await using(client({ WFM_READ_DEADLINE_MS: '300', WFM_RETRY_ATTEMPTS: '2' }), async (c) => {
      await expect(c.listCategories()).rejects.toMatchObject({ code: 'WFM_TIMEOUT', attempts: 2 });
    });
  });
});
