// Connections to the queue's Redis (REDIS_URL, ioredis 5). Two kinds:
// - worker: `maxRetriesPerRequest: null`, as BullMQ requires for its blocking commands; commands
//   wait through a reconnect instead of failing, so a Redis restart pauses a worker, no more.
// - producer (CLI commands, the API): `enableOfflineQueue: false`, so a command sent while Redis is
//   down fails at once instead of queueing in memory — `enqueue` with Redis down prints one clear
//   line and exits, the API answers 503.
// Both first wait until Redis answers, at most `connectTimeoutMs`, and then fail with one line that
// names the URL without its password. After that, long-running processes reconnect forever.

import { Redis } from 'ioredis';
import { ShiftExportError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';

export type RedisRole = 'worker' | 'producer';

/** Redis could not be reached (or went away). Retryable: it may come back. */
export class RedisUnavailableError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    super('REDIS_UNAVAILABLE', message, { retryable: true, cause });
  }
}

export interface RedisConnectOptions {
  readonly role: RedisRole;
  /** How long to wait for Redis to answer before giving up. */
  readonly connectTimeoutMs: number;
  readonly logger?: Logger;
  /** Shown in `CLIENT LIST` (e.g. `shift-export-worker`). */
  readonly connectionName?: string;
  /**
   * Give up connecting after this many failed attempts, even before connectTimeoutMs (one-shot
   * commands: Redis refusing connections will not change in the next seconds). Default: no limit.
   */
  readonly maxAttempts?: number;
}

/** The URL for messages: `redis://host:port/db`, never a user or password. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the configured REDIS_URL';
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/\s*\n\s*/g, ' ');
  return String(error);
}

/** Creates a client for `url` and waits until it is ready; throws RedisUnavailableError otherwise. */
export async function connectRedis(url: string, options: RedisConnectOptions): Promise<Redis> {
  const logger = options.logger ?? silentLogger;
  const where = redactRedisUrl(url);
  let connected = false;
  let gaveUp = false;
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: options.role === 'worker' ? null : 1,
    enableOfflineQueue: options.role === 'worker',
    connectTimeout: Math.max(100, Math.min(options.connectTimeoutMs, 10_000)),
    retryStrategy: (times) => {
      if (!connected && options.maxAttempts !== undefined && times >= options.maxAttempts) {
        gaveUp = true;
        return null;
      }
      return Math.min(100 * 2 ** Math.min(times, 5), 2000);
    },
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
  });
  let lastError: unknown;
  let lastLogged = 0;
  // Without a listener ioredis prints every connection error to the console. Before the first
  // connection the error we throw says it all; afterwards a lost connection is worth a warning.
  client.on('error', (error: unknown) => {
    lastError = error;
    const now = Date.now();
    if (!connected) {
      logger.debug({ redis: where, err: errorText(error) }, 'Redis not reachable yet');
    } else if (now - lastLogged > 10_000) {
      lastLogged = now;
      logger.warn({ redis: where, err: errorText(error) }, 'Redis connection error');
    }
  });
  const ready = new Promise<'ready'>((resolve) =>
    client.once('ready', () => {
      connected = true;
      resolve('ready');
    }),
  );
  const ended = new Promise<'ended'>((resolve) => client.on('end', () => gaveUp && resolve('ended')));
  client.connect().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.connectTimeoutMs);
  });
  try {
    const outcome = await Promise.race([ready, timedOut, ended]);
    if (outcome === 'ended') {
      const reason = lastError === undefined ? 'connection closed' : errorText(lastError);
      throw new RedisUnavailableError(
        `cannot reach Redis at ${where} (${reason}); is it running? (REDIS_URL)`,
        lastError,
      );
    }
    if (outcome === 'timeout') {
      client.disconnect();
      const seconds = Math.round(options.connectTimeoutMs / 100) / 10;
      const reason = lastError === undefined ? 'no answer' : errorText(lastError);
      throw new RedisUnavailableError(
        `cannot reach Redis at ${where} within ${seconds} s (${reason}); is it running? (REDIS_URL)`,
        lastError,
      );
    }
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** Closes a client politely (QUIT), or drops it when Redis is not answering. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
