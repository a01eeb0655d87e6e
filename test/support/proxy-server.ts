// The TCP server under the test proxies in front of a real server (redis-hold-proxy.ts,
// redis-cut-proxy.ts): it listens on a free port of 127.0.0.1, and close() destroys every socket
// it tracked — each client's, and each one the proxy opened and gave to `track` — before it stops.

import { createServer, type Socket } from 'node:net';

export interface ProxyServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Destroys every socket open now; the server goes on accepting. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** `handle` gets each client, tracked, and `track` for the sockets it opens itself. */
export async function startProxyServer(
  handle: (client: Socket, track: (socket: Socket) => Socket) => void,
): Promise<ProxyServer> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): Socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  };
  const server = createServer((client) => handle(track(client), track));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  const dropConnections = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `redis://127.0.0.1:${address.port}`,
    dropConnections,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
