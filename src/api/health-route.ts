// GET /healthz (no auth, for load balancers and orchestrators): 200 when Redis answers PING and the
// default destination (EXPORT_DEST) is reachable and writable, else 503. Each check is bounded in
// time, so a hung dependency makes the probe fail instead of hang. The body says which part failed,
// without credentials.

import type { FastifyInstance } from 'fastify';
import type { RedisClient } from '../queue/redis-connection.js';
import { describeError } from '../errors.js';
import type { DestinationPool } from './destination-pool.js';

export const HEALTH_CHECK_TIMEOUT_MS = 3000;

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(run: () => Promise<unknown>, what: string): Promise<string> {
  try {
    await within(run(), HEALTH_CHECK_TIMEOUT_MS, what);
    return 'ok';
  } catch (error) {
    return describeError(error);
  }
}

export function registerHealthRoute(
  app: FastifyInstance,
  deps: { readonly redis: RedisClient; readonly destinations: DestinationPool },
): void {
  app.get('/healthz', async (_request, reply) => {
    const [redis, destination] = await Promise.all([
      check(() => deps.redis.ping(), 'Redis'),
      check(async () => (await deps.destinations.get(undefined)).check(), 'the destination'),
    ]);
    const ok = redis === 'ok' && destination === 'ok';
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', redis, destination });
  });
}
