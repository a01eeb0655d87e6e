// The Redis and job-queue group of settings: which Redis (REDIS_URL, a Cluster or Sentinels, with
// password files and TLS; resolved into one target by redis-target.ts), the BullMQ key prefix, and
// how a worker runs jobs (concurrency, attempts, backoff, shutdown grace).

import { z } from 'zod';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { resolveRedisTarget, type RedisTarget } from './redis-target.js';
import { int, visibleAscii } from './variable-schemas.js';

/** What ioredis can connect to; checked here so that a typo is not a TypeError at connect time. */
function isRedisUrl(text: string): boolean {
  if (!/^rediss?:\/\/\S+$/i.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

export const queueVariables = {
  redisUrl: envVar(
    'REDIS_URL',
    z
      .string()
      .default('redis://127.0.0.1:6379')
      .refine(isRedisUrl, 'must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379'),
    'Redis of the job queue: redis://[user:password@]host[:port][/db] or rediss://… (TLS). Ignored when REDIS_CLUSTER_NODES or REDIS_SENTINELS is set.',
  ),
  passwordFile: envVar(
    'REDIS_PASSWORD_FILE',
    z.string().optional(),
    'File holding the Redis password (surrounding whitespace ignored), for any of the three shapes; not together with a password in REDIS_URL.',
  ),
  clusterNodes: envVar(
    'REDIS_CLUSTER_NODES',
    z.string().optional(),
    'Redis Cluster seed nodes, host:port,host:port,… (any one is enough; the rest of the cluster is discovered). Replaces REDIS_URL; QUEUE_PREFIX must then be a {hash-tag}.',
  ),
  sentinels: envVar(
    'REDIS_SENTINELS',
    z.string().optional(),
    'Redis Sentinels, host:port,host:port,…: the queue uses the primary they name REDIS_SENTINEL_NAME and follows it across failovers. Replaces REDIS_URL; not together with REDIS_CLUSTER_NODES.',
  ),
  sentinelPasswordFile: envVar(
    'REDIS_SENTINEL_PASSWORD_FILE',
    z.string().optional(),
    "File holding the password of the Sentinels themselves (their requirepass), when they ask for one; only with REDIS_SENTINELS. The primary's password is REDIS_PASSWORD_FILE.",
  ),
  sentinelName: envVar(
    'REDIS_SENTINEL_NAME',
    visibleAscii('a Sentinel master name such as mymaster').optional(),
    'Name of the primary the Sentinels in REDIS_SENTINELS monitor.',
  ),
  tls: envVar(
    'REDIS_TLS',
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .transform((v) => v === 'true' || v === '1' || v === 'yes')
      .optional(),
    'Connect with TLS (server certificate and host name checked) to the cluster nodes, the Sentinels and the primary, or the REDIS_URL host; a rediss:// REDIS_URL turns it on too.',
    { docDefault: '(off; on for a rediss:// REDIS_URL)' },
  ),
  tlsCaFile: envVar(
    'REDIS_TLS_CA_FILE',
    z.string().optional(),
    "PEM file of the CA that signed the Redis servers' certificates (instead of the system CAs); needs TLS on.",
  ),
  prefix: envVar(
    'QUEUE_PREFIX',
    z
      .string()
      .regex(/^\{[^{}:]+\}$|^[^{}:\s]+$/, 'must be a name without ":" (a {hash-tag} for Redis Cluster)')
      .default('{shift-export}'),
    'BullMQ key prefix. A {hash-tag} puts every key of the queue in one Redis Cluster slot, which a cluster requires.',
  ),
  concurrency: envVar('WORKER_CONCURRENCY', int(1, 64, 1), 'Exports one worker process runs at once.'),
  attempts: envVar('JOB_ATTEMPTS', int(1, 100, 5), 'Attempts of a job whose failure is transient.'),
  backoffMs: envVar(
    'JOB_BACKOFF_MS',
    int(0, 86_400_000, 30_000),
    'First retry delay of a failed job; doubles each attempt, half fixed and half random, at most 1 h.',
  ),
  shutdownGraceMs: envVar(
    'SHUTDOWN_GRACE_MS',
    int(0, 3_600_000, 60_000),
    'On SIGTERM/SIGINT, how long a running export may go on before it is aborted and handed back.',
  ),
};

type RedisFields =
  | 'redisUrl'
  | 'passwordFile'
  | 'clusterNodes'
  | 'sentinels'
  | 'sentinelPasswordFile'
  | 'sentinelName'
  | 'tls'
  | 'tlsCaFile';

/** The queue's settings; the Redis variables are resolved into one `redis` target (redis-target.ts). */
export type QueueConfig = Omit<Loaded<typeof queueVariables>, RedisFields> & { readonly redis: RedisTarget };

export function loadQueueConfig(env: Env): QueueConfig {
  const {
    redisUrl,
    passwordFile,
    clusterNodes,
    sentinels,
    sentinelPasswordFile,
    sentinelName,
    tls,
    tlsCaFile,
    ...queue
  } = loadDeclared(env, queueVariables);
  const redis = resolveRedisTarget({
    url: redisUrl,
    passwordFile,
    clusterNodes,
    sentinels,
    sentinelPasswordFile,
    sentinelName,
    tls,
    tlsCaFile,
    prefix: queue.prefix,
  });
  return Object.freeze({ ...queue, redis });
}
