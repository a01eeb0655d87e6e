// A TCP proxy in front of a real redis-server that holds a command back: every byte goes through
// until a client sends one that carries `marker`; from then on nothing more of that connection
// reaches Redis (the command is never run), and `held` resolves. A test puts it between a worker
// and Redis to stop the worker at one exact step — for instance just before BullMQ marks a job
// completed, whose return value is in that command — and then kills it there, with no timing.

import { createConnection } from 'node:net';
import { startProxyServer, type ProxyServer } from './proxy-server.js';

export interface RedisHoldProxy extends ProxyServer {
  /** Resolves when a command carrying the marker was held back. */
  readonly held: Promise<void>;
}

export async function startRedisHoldProxy(redisUrl: string, marker: string): Promise<RedisHoldProxy> {
  const target = new URL(redisUrl);
  const needle = Buffer.from(marker);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));

  const server = await startProxyServer((client, track) => {
    const upstream = track(createConnection({ host: target.hostname, port: Number(target.port) }));
    // The tail of what came before, so a marker split across two chunks is found.
    let tail = Buffer.alloc(0);
    let holding = false;
    client.on('data', (chunk: Buffer) => {
      if (holding) return;
      const seen = Buffer.concat([tail, chunk]);
      if (seen.includes(needle)) {
        holding = true;
        release();
        return;
      }
      tail = seen.subarray(Math.max(0, seen.length - needle.length + 1));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return { ...server, held };
}
