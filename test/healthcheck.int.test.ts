// bin/healthcheck.js, the container health probe (Dockerfile HEALTHCHECK, docker-compose.yml),
// against a real HTTP server and a real redis-server on loopback.

import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRedisServer } from './support/redis-server.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** Runs the probe (on `target`, or on what it finds to probe) and resolves with its exit code. */
function probe(
  target: string | undefined,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stderr: string }> {
  const args = [join(ROOT, 'bin/healthcheck.js'), ...(target === undefined ? [] : [target])];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: { PATH: process.env['PATH'] ?? '', ...env } },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stderr }),
    );
  });
}

describe('bin/healthcheck.js', () => {
  it('exits 0 for a 2xx answer or a Redis PONG, and 1 for anything else', async () => {
    const http = createServer((request, response) => {
      response.statusCode = request.url === '/healthz' ? 200 : 503;
      response.end('{}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const redis = await startRedisServer();
    try {
      const address = http.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      expect(await probe(`http://127.0.0.1:${port}/healthz`)).toEqual({ code: 0, stderr: '' });
      expect((await probe(`http://127.0.0.1:${port}/other`)).code).toBe(1);
      expect(await probe(redis.url)).toEqual({ code: 0, stderr: '' });
      await redis.stop();
      const down = await probe(redis.url);
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/^unhealthy: redis:\/\/127\.0\.0\.1:\d+ did not answer/);
    } finally {
      await redis.stop();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('probes REDIS_URL when given no target outside an api or sandbox container (a worker)', async () => {
    const redis = await startRedisServer();
    try {
      expect(await probe(undefined, { REDIS_URL: redis.url })).toEqual({ code: 0, stderr: '' });
      await redis.stop();
      expect((await probe(undefined, { REDIS_URL: redis.url })).code).toBe(1);
    } finally {
      await redis.stop();
    }
  });
});
