// A webhook receiver for tests: a node:http server on 127.0.0.1 that keeps every request (headers
// and raw body) and answers from a script — the statuses of the first requests in order, then
// 200. `waitFor(n)` resolves when n requests have arrived (no polling, no sleeps); `verify` checks
// a request's signature the way a receiver should: HMAC-SHA256 of the raw bytes, compared in
// constant time.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: Buffer;
  /** The status it was answered with. */
  readonly status: number;
  json(): Record<string, unknown>;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly requests: ReceivedRequest[];
  /** Answers the next requests with these statuses, in order (then 200 again). */
  answerNext(...statuses: number[]): void;
  /** Holds every answer until `release()` (a receiver that does not answer). */
  hang(): void;
  /** Resolves once `count` requests have arrived in all. */
  waitFor(count: number): Promise<ReceivedRequest[]>;
  /** Requests that got a 2xx. */
  accepted(): ReceivedRequest[];
  close(): Promise<void>;
}

export function verifySignature(request: ReceivedRequest, secret: string): boolean {
  const header = request.headers['x-shift-export-signature'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(request.raw).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const script: number[] = [];
  const waiters: { count: number; resolve: (r: ReceivedRequest[]) => void }[] = [];
  let hanging = false;
  const held = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = script.shift() ?? 200;
      const raw = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw,
        status,
        json: () => JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
      });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve([...requests]);
      }
      const answer = (): void => {
        res.statusCode = status;
        res.end(status < 300 ? 'ok' : 'not now');
      };
      if (hanging) held.add(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    answerNext: (...statuses) => void script.push(...statuses),
    hang: () => void (hanging = true),
    waitFor(count) {
      if (requests.length >= count) return Promise.resolve([...requests]);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    accepted: () => requests.filter((r) => r.status >= 200 && r.status < 300),
    async close() {
      for (const answer of held) answer();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
