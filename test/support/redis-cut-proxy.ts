// A TCP proxy in front of a real redis-server that takes Redis away at one exact step: every byte
// goes through until a client sends a command carrying `marker`; once Redis has answered it, every
// connection is cut, and connections made from then on are accepted and never answered — a Redis
// that went away behind a load balancer, or whose host stopped answering. `cut` resolves then. A
// test puts it between a command and Redis to lose Redis right after that command, with no timing.

import { createConnection } from 'node:net';
import { startProxyServer, type ProxyServer } from './proxy-server.js';

export interface RedisCutProxy extends ProxyServer {
  /** Resolves once the connections were cut. */
  readonly cut: Promise<void>;
}

export async function startRedisCutProxy(redisUrl: string, marker: string): Promise<RedisCutProxy> {
  const target = new URL(redisUrl);
  const needle = Buffer.from(marker);
  let isCut = false;
  let markCut!: () => void;
  const cut = new Promise<void>((resolve) => (markCut = resolve));
  const cutAll = (): void => {
    isCut = true;
    server.dropConnections();
    markCut();
  };

  const server = await startProxyServer((client, track) => {
    if (isCut) return;
    const upstream = track(createConnection({ host: target.hostname, port: Number(target.port) }));
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
  return { ...server, cut };
}
