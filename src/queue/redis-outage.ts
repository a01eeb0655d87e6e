// Notices that Redis has gone away for good enough: a one-shot command that waits on Redis
// (`enqueue --wait`, `backfill --wait`) would otherwise wait forever while its client reconnects in
// the background. A client that has not been ready for `limitMs` in a row counts as lost.

import type { RedisTarget } from '../config/redis-target.js';
import { RedisUnavailableError, type RedisClient } from './redis-connection.js';

export interface RedisOutageWatch {
  /** Rejects with RedisUnavailableError once a watched client has been down for `limitMs`. */
  readonly lost: Promise<never>;
  dispose(): void;
}

export function watchRedisOutage(
  clients: readonly RedisClient[],
  limitMs: number,
  target: Pick<RedisTarget, 'where' | 'variable'>,
  what: string,
): RedisOutageWatch {
  const timers = new Map<RedisClient, NodeJS.Timeout>();
  const listeners: [RedisClient, string, () => void][] = [];
  let fail: (error: RedisUnavailableError) => void = () => undefined;
  const lost = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Nobody may be listening when the watch is disposed without an outage.
  lost.catch(() => undefined);
  const down = (client: RedisClient): void => {
    if (timers.has(client)) return;
    timers.set(
      client,
      setTimeout(() => {
        const seconds = Math.round(limitMs / 100) / 10;
        fail(
          new RedisUnavailableError(
            `lost ${target.where} for ${seconds} s while ${what}; is it running? (${target.variable})`,
          ),
        );
      }, limitMs),
    );
  };
  const up = (client: RedisClient): void => {
    clearTimeout(timers.get(client));
    timers.delete(client);
  };
  for (const client of clients) {
    const onDown = (): void => down(client);
    const onUp = (): void => up(client);
    for (const event of ['close', 'end', 'reconnecting']) {
      client.on(event, onDown);
      listeners.push([client, event, onDown]);
    }
    client.on('ready', onUp);
    listeners.push([client, 'ready', onUp]);
    if (client.status !== 'ready') down(client);
  }
  return {
    lost,
    dispose() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const [client, event, listener] of listeners) client.off(event, listener);
    },
  };
}
