// A TCP proxy in front of a real redis-server that holds a command back: every byte goes through
// until a client sends one that carries `marker`; from then on nothing more of that connection
// reaches Redis (the command is never run), and `held` resolves. A test puts it between a worker
// and Redis to stop the worker at one exact step — for instance just before BullMQ marks a job
// completed, whose return value is in that command — and then kills it there, with no timing.

import { createConnection, createServer, type Socket } from 'node:net';

export interface RedisHoldProxy {
  /** `redis://127.0.0.1:<port>`: the proxy, for the client to be held. */
  readonly url: string;
  /** Resolves when a command carrying the marker was held back. */
  readonly held: Promise<void>;
  close(): Promise<void>;
}

export async function startRedisHoldProxy(redisUrl: string, marker: string): Promise<RedisHoldProxy> {
  const target = new URL(redisUrl);
  const needle = Buffer.from(marker);
  const sockets = new Set<Socket>();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));

  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client);
    sockets.add(upstream);
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
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
