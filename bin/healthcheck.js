#!/usr/bin/env node
// The container health probe (Dockerfile HEALTHCHECK, docker-compose.yml): exit 0 when the target
// answers, 1 otherwise, within a few seconds. The image has no curl, and a probe must not load the
// whole CLI to ask one question.
//
//   node bin/healthcheck.js URL       an http:// URL answering 2xx, or a redis:// / rediss:// URL
//                                     answering PING (credentials and TLS as in REDIS_URL)
//   node bin/healthcheck.js           what the container runs (its process 1, `shift-export <command>`):
//                                     api: GET /healthz on API_PORT; sandbox: its --port;
//                                     worker (the image's default): REDIS_URL
import { readFileSync } from 'node:fs';
import { get } from 'node:http';

const TIMEOUT_MS = 4000;

/** The command line of the container's main process, or [] outside a container. */
function mainCommand() {
  try {
    return readFileSync('/proc/1/cmdline', 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** What to probe when no URL is given: the service the container's main process runs. */
async function defaultTarget() {
  const argv = mainCommand();
  const bin = argv.findIndex((a) => a.endsWith('shift-export.js') || a.endsWith('shift-export'));
  const command = bin >= 0 ? argv[bin + 1] : undefined;
  // The variables are read through their declarations (src/config/), defaults included.
  const configModule = (name) => import(new URL(`../dist/src/config/${name}.js`, import.meta.url).href);
  if (command === 'api') {
    const { loadApiConfig } = await configModule('api-config');
    return `http://127.0.0.1:${loadApiConfig(process.env).port}/healthz`;
  }
  if (command === 'sandbox') {
    const port = argv.indexOf('--port');
    return `http://127.0.0.1:${port >= 0 ? argv[port + 1] : '8080'}/_sandbox/stats`;
  }
  // A worker: its Redis, whichever shape (single, cluster, Sentinel) the variables describe.
  const { loadQueueConfig } = await configModule('queue-config');
  return loadQueueConfig(process.env).redis;
}

/** Resolves whether `url` answers a GET with a 2xx status. */
function httpAnswers(url) {
  return new Promise((resolve) => {
    const request = get(url, { timeout: TIMEOUT_MS }, (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve(status >= 200 && status < 300);
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => resolve(false));
  });
}

/** Resolves whether the Redis at `url` answers PING. */
async function redisAnswers(url) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Resolves whether the queue's Redis (a RedisTarget from the configuration) answers PING. */
async function queueRedisAnswers(target) {
  const { connectRedis, closeRedis } = await import(
    new URL('../dist/src/queue/redis-connection.js', import.meta.url).href
  );
  try {
    const client = await connectRedis(target, {
      role: 'producer',
      connectTimeoutMs: TIMEOUT_MS,
      maxAttempts: 1,
    });
    try {
      return (await client.ping()) === 'PONG';
    } finally {
      await closeRedis(client);
    }
  } catch {
    return false;
  }
}

const given = process.argv[2] ?? (await defaultTarget());
let healthy;
let shown;
if (typeof given === 'string') {
  const target = new URL(given);
  healthy = /^rediss?:$/.test(target.protocol) ? await redisAnswers(target.href) : await httpAnswers(target);
  // The host and path only: a redis:// URL may carry a password.
  shown = `${target.protocol}//${target.host}${target.pathname}`;
} else {
  healthy = await queueRedisAnswers(given);
  shown = given.where; // never a credential (src/config/redis-target.ts)
}
if (!healthy) console.error(`unhealthy: ${shown} did not answer`);
process.exit(healthy ? 0 : 1);
