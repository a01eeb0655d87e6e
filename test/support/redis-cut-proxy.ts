// A TCP proxy in front of a real redis-server that takes Redis away at one exact step: every byte
// goes through until a client sends a command carrying `marker`; once Redis has answered it, every
// connection is cut, and connections made from then on are accepted and never answered — a Redis
// that went away behind a load balancer, or whose host stopped answering. `cut` resolves then. A
// test puts it between a command and Redis to lose Redis right after that command, with no timing.

import { createConnection, createServer, type Socket } from 'node:net';

export interface RedisCutProxy {
  /** `redis://127.0.0.1:<port>`: the proxy, for the clients that are to lose Redis. */
  readonly url: string;
  /** Resolves once the connections were cut. */
  readonly cut: Promise<void>;
  close(): Promise<void>;
}

export async function startRedisCutProxy(redisUrl: string, marker: string): Promise<RedisCutProxy> {
  const target = new URL(redisUrl);
  const needle = Buffer.from(marker);
  const sockets = new Set<Socket>();
  let isCut = false;
  let markCut!: () => void;
  const cut = new Promise<void>((resolve) => (markCut = resolve));
  const cutAll = (): void => {
    isCut = true;
    for (const socket of sockets) socket.destroy();
    markCut();
  };
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = createServer((client) => {
    track(client);
    if (isCut) return;
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    track(upstream);
    // The tail of what came before, so a marker split across two chunks is found.
    let tail = Buffer.alloc(0);
    let cutAfterAnswer = false;
    client.on('data', (chunk: Buffer) => {
      if (isCut) return;
      const seen = Buffer.concat([tail, chunk]);
      if (seen.includes(needle)) cutAfterAnswer = true;
      tail = seen.subarray(Math.max(0, seen.length - needle.length + 1));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (isCut) return;
      client.write(chunk, () => {
        if (cutAfterAnswer && !isCut) cutAll();
      });
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
