import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadQueueConfig } from '../../src/config/queue-config.js';
import { RedisUnavailableError } from '../../src/queue/redis-connection.js';
import { watchRedisOutage } from '../../src/queue/redis-outage.js';

/** Enough of an ioredis client for the watch: its status and its connection events. */
function fakeClient(status: string): Redis & EventEmitter {
  return Object.assign(new EventEmitter(), { status }) as unknown as Redis & EventEmitter;
}

const targetOf = (url: string) => loadQueueConfig({ REDIS_URL: url }).redis;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('watchRedisOutage', () => {
  it('rejects once the client has been down for the limit, naming the URL without its password', async () => {
    const client = fakeClient('ready');
    const watch = watchRedisOutage(
      [client],
      3000,
      targetOf('redis://:hunter2@cache:6379'),
      'waiting for job j1',
    );
    const outcome = watch.lost.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    client.emit('close');
    client.emit('reconnecting');
    await vi.advanceTimersByTimeAsync(2999);
    client.emit('reconnecting');
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as RedisUnavailableError).message).toBe(
      'lost Redis at redis://cache:6379 for 3 s while waiting for job j1; is it running? (REDIS_URL)',
    );
    expect((error as RedisUnavailableError).message).not.toContain('hunter2');
    watch.dispose();
  });

  it('forgives an outage shorter than the limit (a restart the client rides out)', async () => {
    const client = fakeClient('ready');
    const watch = watchRedisOutage([client], 3000, targetOf('redis://cache:6379'), 'waiting');
    let settled = false;
    watch.lost.catch(() => (settled = true));
    client.emit('close');
    await vi.advanceTimersByTimeAsync(2500);
    client.emit('ready');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(settled).toBe(false);
    watch.dispose();
    expect(client.listenerCount('close')).toBe(0);
    expect(client.listenerCount('ready')).toBe(0);
  });

  it('counts a client that is not ready when the watch starts as down', async () => {
    const client = fakeClient('reconnecting');
    const watch = watchRedisOutage([client], 1000, targetOf('redis://cache:6379'), 'waiting');
    const outcome = watch.lost.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await outcome).toBeInstanceOf(RedisUnavailableError);
    watch.dispose();
  });
});
