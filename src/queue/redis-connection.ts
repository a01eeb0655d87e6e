// Connections to the queue's Redis, whatever its shape (src/config/redis-target.ts: a single primary, a
// Redis Cluster or a primary behind Sentinels, each optionally over TLS): every Redis user — worker,
// enqueue, status, backfill, the API, the metrics hash — gets its client here. Two kinds:
// - worker: `maxRetriesPerRequest: null`, as BullMQ requires for its blocking commands; commands
//   wait through a reconnect (or a failover) instead of failing, so a Redis restart pauses a
//   worker, no more.
// - producer (CLI commands, the API): `enableOfflineQueue: false`, so a command sent while Redis is
//   down fails at once instead of queueing in memory — `enqueue` with Redis down prints one clear
//   line and exits, the API answers 503.
// Both first wait until Redis answers, at most `connectTimeoutMs`, and then fail with one line that
// names the target without its password and the variable to fix. After that, long-running
// processes reconnect forever: a cluster client follows the slots to a promoted replica, a
// Sentinel client asks the Sentinels for the new primary.

import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { Redis, type Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { ShiftExportError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { RedisTarget } from '../config/redis-target.js';
import { SlotsFollowingCluster } from './slots-following-cluster.js';

/** A connection to the queue's Redis: one server (single or via Sentinel) or a whole cluster. */
export type RedisClient = Redis | Cluster;

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

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/\s*\n\s*/g, ' ');
  return String(error);
}

/** Slots move on a failover: a cluster client looks them up again this often (ioredis: 5 s). */
const CLUSTER_SLOTS_REFRESH_MS = 2000;

/** Reconnection delay: quick at first, then every 2 s, for as long as the process runs. */
function backoffMs(times: number): number {
  return Math.min(100 * 2 ** Math.min(times, 5), 2000);
}

interface ClientHooks {
  /** Null to give up (a one-shot command that could not connect), else the delay. */
  readonly retry: (times: number) => number | null;
}

function tlsOptions(target: RedisTarget): TlsOptions | undefined {
  // Certificate and host-name checks stay Node's defaults (on); only the CA may be ours.
  if (target.tls === undefined) return undefined;
  return target.tls.ca === undefined ? {} : { ca: target.tls.ca };
}

/** The ioredis client for `target`, not connected yet. */
function createClient(target: RedisTarget, options: RedisConnectOptions, hooks: ClientHooks): RedisClient {
  const tls = tlsOptions(target);
  const common: RedisOptions = {
    maxRetriesPerRequest: options.role === 'worker' ? null : 1,
    connectTimeout: Math.max(100, Math.min(options.connectTimeoutMs, 10_000)),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
  };
  if (target.kind === 'cluster') {
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      enableOfflineQueue: options.role === 'worker',
      clusterRetryStrategy: (times) => hooks.retry(times),
      redisOptions: { ...common, ...(tls === undefined ? {} : { tls }) },
      // With TLS keep the host names the cluster announces, so certificates are checked against
      // them rather than against addresses they were resolved to.
      ...(tls === undefined ? {} : { dnsLookup: (address, callback) => callback(null, address) }),
    };
    return new SlotsFollowingCluster(
      target.nodes.map((n) => ({ host: n.host, port: n.port })),
      clusterOptions,
      CLUSTER_SLOTS_REFRESH_MS,
    );
  }
  const single: RedisOptions = {
    ...common,
    lazyConnect: true,
    enableOfflineQueue: options.role === 'worker',
    retryStrategy: (times) => hooks.retry(times),
    // A primary turned replica by a failover answers writes with READONLY: reconnect (through
    // the Sentinels, to the new primary) and send the command again.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    ...(tls === undefined ? {} : { tls }),
  };
  if (target.kind === 'single') return new Redis(target.url, single);
  return new Redis({
    ...single,
    sentinels: target.sentinels.map((n) => ({ host: n.host, port: n.port })),
    name: target.name,
    role: 'master',
    ...(target.sentinelPassword === undefined ? {} : { sentinelPassword: target.sentinelPassword }),
    sentinelRetryStrategy: (times) => hooks.retry(times),
    // Not ioredis's failoverDetector: its Sentinel subscriptions outlive quit(), which BullMQ uses
    // to close the connections it duplicates, and keep a stopped process alive. A crashed primary
    // breaks the connection and a demoted one answers READONLY: either way we ask the Sentinels.
    ...(tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: tls }),
  });
}

/** Creates a client for `target` and waits until it is ready; throws RedisUnavailableError otherwise. */
export async function connectRedis(target: RedisTarget, options: RedisConnectOptions): Promise<RedisClient> {
  const logger = options.logger ?? silentLogger;
  const where = target.where;
  let connected = false;
  let gaveUp = false;
  const client = createClient(target, options, {
    retry: (times) => {
      if (!connected && options.maxAttempts !== undefined && times >= options.maxAttempts) {
        gaveUp = true;
        return null;
      }
      return backoffMs(times);
    },
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
  if (target.kind === 'cluster') {
    // A node of the cluster going away (a failover) is worth a line, not an error of the client.
    (client as Cluster).on('node error', (error: unknown, address: string) => {
      lastError = error;
      if (connected)
        logger.warn({ redis: where, node: address, err: errorText(error) }, 'Redis Cluster node error');
    });
  }
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
        `cannot reach ${where} (${reason}); is it running? (${target.variable})`,
        lastError,
      );
    }
    if (outcome === 'timeout') {
      client.disconnect();
      const seconds = Math.round(options.connectTimeoutMs / 100) / 10;
      const reason = lastError === undefined ? 'no answer' : errorText(lastError);
      throw new RedisUnavailableError(
        `cannot reach ${where} within ${seconds} s (${reason}); is it running? (${target.variable})`,
        lastError,
      );
    }
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** Closes a client politely (QUIT), or drops it when Redis is not answering. */
export async function closeRedis(client: RedisClient): Promise<void> {
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
