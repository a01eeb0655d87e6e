// A real redis-server for integration tests: started on a free loopback port without persistence,
// ready once it answers PING, stopped (or restarted on the same port) on request. Each test then
// works under its own key prefix (`testPrefix()`) and removes its keys (`removeKeys`).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { inScopeOf, nameResource } from './leak-guard.js';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
  /** Stops the server and starts a new one on the same port (the data is gone: no persistence). */
  restart(): Promise<void>;
}

/** The kernel's range of ports for port-0 listeners and outgoing connections (Linux's default, else). */
function ephemeralPorts(): { readonly low: number; readonly high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low !== undefined && high !== undefined && low > 0 && high >= low) return { low, high };
  } catch {
    // Not Linux: its default range is the usual one.
  }
  return { low: 32_768, high: 60_999 };
}

/** Whether a listener can be opened on 127.0.0.1:`port` now (it is closed again at once). */
function canListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/** Ports handed out below the ephemeral range: from here up to the range's start. */
const LOWEST_PORT = 10_000;

/**
 * A loopback port nothing listens on now, for a server a test starts later (or for one that must
 * not be there). It lies outside the kernel's ephemeral range: every server that listens on port 0
 * (the S3 server, the SMTP receivers, other test files' API children) and every outgoing connection
 * takes its port from that range, so none can take this one before the test binds it. A port picked
 * from that range had been taken so once, and a health probe talked to another test's S3 server.
 */
export async function freePort(): Promise<number> {
  const { low, high } = ephemeralPorts();
  const [from, to] = low > LOWEST_PORT ? [LOWEST_PORT, low - 1] : [high + 1, 65_535];
  for (let attempt = 0; attempt < 50 && to >= from; attempt++) {
    const port = await canListen(from + Math.floor(Math.random() * (to - from + 1)));
    if (port !== undefined) return port;
  }
  const port = await canListen(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}

/** Resolves true when the server on `port` answers PING with PONG. */
export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      // NOAUTH: a server with requirepass (a password-protected Sentinel) is up and answering.
      if (answer.includes('\r\n')) finish(answer.startsWith('+PONG') || answer.startsWith('-NOAUTH'));
    });
  });
}

/**
 * The arguments of a throw-away server on `port`: loopback only, no persistence. A replica still
 * writes the RDB file of its initial sync, named after its port, into `dir`: give one that is
 * removed with the server (the default, the test file's temp folder, fails the file if left).
 */
export function serverArgs(port: number, dir: string = tmpdir()): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--dbfilename',
    `dump-${port}.rdb`,
    '--loglevel',
    'warning',
  ];
}

/**
 * Spawns `redis-server ...args` and resolves once the plain-text port `port` answers PING; rejects
 * when it exits first. Cluster nodes, replicas, Sentinels (`--sentinel`) and TLS servers (with a
 * plain port beside the TLS one) are all started this way.
 */
export async function startRedisProcess(args: readonly string[], port: number): Promise<ChildProcess> {
  const child = nameResource(
    spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] }),
    'redis-server process',
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`redis-server exited (${code ?? signal}) before it was ready: ${output.trim()}`)),
    );
    child.once('error', reject);
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (await Promise.race([ping(port), exited])) return child;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${output.trim()}`);
    }
    // Readiness polling of a server we just spawned, not test synchronisation.
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts redis-server on `port`; resolves once it answers PING, rejects when it exits first. */
function startOn(port: number): Promise<ChildProcess> {
  return startRedisProcess(serverArgs(port), port);
}

/** Stops a server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export async function startRedisServer(): Promise<RedisServer> {
  let lastError: unknown;
  // Another process may take the free port between the probe and the spawn: try a few.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      let child = await startOn(port);
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        stop: () => stopChild(child),
        async restart() {
          await stopChild(child);
          const stopped = child;
          child = await inScopeOf(stopped, () => startOn(port));
        },
      };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** A fresh BullMQ key prefix, a hash tag like production's. */
export function testPrefix(): string {
  return `{test-${randomUUID()}}`;
}

/** Deletes every key under `prefix` (what a test created). */
export async function removeKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * One short connection to the server on `port` for `use`: no retries and a 1 s connect timeout, so
 * a node a test has stopped fails at once instead of being waited for.
 */
export async function withRedisAt<T>(
  port: number,
  use: (redis: Redis) => Promise<T>,
  password?: string,
): Promise<T> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    ...(password === undefined ? {} : { password }),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
