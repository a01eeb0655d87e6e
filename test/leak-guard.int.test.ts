// The leak guard (test/support/leak-guard.ts) itself, with a real redis-server: each kind of
// resource, left open on purpose, makes checkReleased() throw a message naming it and this file's
// line; released, it passes. A temp folder or file left in the file's TMPDIR, by the test or by a
// CLI child, makes checkTempDirEmpty() throw naming it.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQueueConfig } from '../src/config/queue-config.js';
import { connectRedis } from '../src/queue/redis-connection.js';
import { cliEnv } from './support/cli.js';
import { checkReleased, checkTempDirEmpty, nameResource, useFileTempDir } from './support/leak-guard.js';
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
    const line = new Error().stack?.match(/leak-guard\.int\.test\.ts:(\d+)/)?.[1];
    try {
      await expect(checkReleased('test')).rejects.toThrow(
        `failed to release: 1 Redis connection (created at test/leak-guard.int.test.ts:${Number(line) - 1})`,
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
        /^failed to release: 1 receiver \(created at test\/leak-guard\.int\.test\.ts:\d+\)$/,
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
        /^failed to release: 2 child processes \(created at test\/leak-guard\.int\.test\.ts:\d+, test\/leak-guard\.int\.test\.ts:\d+\)$/,
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
      `failed to release: 1 redis-server process (created at test/leak-guard.int.test.ts:${line})`,
    );
  });

  it('gives each test file a TMPDIR of its own, which the CLI children it starts inherit', () => {
    const dir = tmpdir();
    expect(basename(dir)).toMatch(/^shift-export-test-\d+-/);
    expect(cliEnv({})['TMPDIR']).toBe(dir);
  });

  it('names a temp folder a test left, with its line, and a file a child left, then removes both', () => {
    const dir = tmpdir();
    const folder = mkdtempSync(join(dir, 'left-behind-'));
    const line = new Error().stack?.match(/leak-guard\.int\.test\.ts:(\d+)/)?.[1];
    writeFileSync(join(folder, 'inside'), 'x');
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        "require('node:fs').writeFileSync(require('node:path').join(require('node:os').tmpdir(), 'from-a-child.bin'), 'x')",
      ],
      { env: cliEnv({}) },
    );
    expect(child.status).toBe(0);
    try {
      expect(() => checkTempDirEmpty()).toThrow(
        `left in the temp folder: 2 entries: from-a-child.bin, ${basename(folder)} (created at test/leak-guard.int.test.ts:${Number(line) - 1})`,
      );
      expect(existsSync(dir)).toBe(false);
      expect(tmpdir()).not.toBe(dir);
    } finally {
      // The rest of the file (and the guard's own check at its end) gets a fresh one.
      useFileTempDir();
    }
  });

  it('passes when the temp folder is empty', () => {
    expect(() => checkTempDirEmpty()).not.toThrow();
    useFileTempDir();
  });
});
