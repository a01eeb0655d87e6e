// The leak guard (test/support/leak-guard.ts) itself: each kind of resource, left open on purpose,
// makes checkReleased() throw a message naming it and this file's line; released, it passes.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQueueConfig } from '../src/config/queue-config.js';
import { connectRedis } from '../src/queue/redis-connection.js';
import { checkReleased, nameResource } from './support/leak-guard.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis.stop());

describe('leak guard', () => {
  it('names a Redis connection left open by production code, with where the test created it', async () => {
    const target = loadQueueConfig({ REDIS_URL: redis.url }).redis;
    const client = await connectRedis(target, { role: 'producer', connectTimeoutMs: 3000 });
    const line = new Error().stack?.match(/leak-guard\.test\.ts:(\d+)/)?.[1];
    try {
      await expect(checkReleased('test')).rejects.toThrow(
        `failed to release: 1 Redis connection (created at test/leak-guard.test.ts:${Number(line) - 1})`,
      );
    } finally {
      client.disconnect();
    }
  });

  it('passes once a client has quit, and counts one that is only closing as released', async () => {
    const quitting = new Redis(redis.url);
    const disconnected = new Redis(redis.url);
    await Promise.all([quitting.ping(), disconnected.ping()]);
    await quitting.quit();
    disconnected.disconnect();
    await expect(checkReleased('test')).resolves.toBeUndefined();
  });

  it('names a listening server, with the name a helper gave it', async () => {
    const server = nameResource(createServer(), 'receiver');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await expect(checkReleased('test')).rejects.toThrow(
        /^failed to release: 1 receiver \(created at test\/leak-guard\.test\.ts:\d+\)$/,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names a running child process and counts several of a kind', async () => {
    const children = [spawn('sleep', ['30']), spawn('sleep', ['30'])];
    const exited = children.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    try {
      await expect(checkReleased('test')).rejects.toThrow(
        /^failed to release: 2 child processes \(created at test\/leak-guard\.test\.ts:\d+, test\/leak-guard\.test\.ts:\d+\)$/,
      );
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(exited);
    }
  });

  it('leaves what the file started in beforeAll (the redis-server) to the end of the file', async () => {
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    const line = source.findIndex((text) => text.includes('redis = await startRedisServer()')) + 1;
    await expect(checkReleased('test')).resolves.toBeUndefined();
    await expect(checkReleased('file')).rejects.toThrow(
      `failed to release: 1 redis-server process (created at test/leak-guard.test.ts:${line})`,
    );
  });
});
