// The memory behind "a retried job never sends a second copy": what became of each delivery
// message, under its message key (mail-plan.ts: export id, division, recipient set). Delivery looks
// a key up before it sends and records it right after the server's 250 (or its permanent refusal),
// so a job that fails or is killed after a send, and runs again, finds the message and skips it.
// Only the gap between the server's 250 and this one write can repeat a message. The worker's log
// is in Redis under the queue's prefix (so on a Redis Cluster it sits in the queue's slot), kept
// SENT_LOG_TTL_SECONDS; `run` keeps one in memory for its own retries.

import type { RedisClient } from '../queue/redis-connection.js';

/** How long a message is remembered: longer than any job's retries last. */
export const SENT_LOG_TTL_SECONDS = 30 * 24 * 3600;

export interface SentRecord {
  /** `accepted`: the server took the message (for some recipients at least); `refused`: a 5xx for all. */
  readonly status: 'accepted' | 'refused';
  readonly at: string;
  /** Recipients the server refused (5xx), never to be retried. */
  readonly refused: readonly string[];
  /** The server's reason for a refusal, one line. */
  readonly reason?: string | undefined;
}

export interface SentLog {
  find(key: string): Promise<SentRecord | undefined>;
  record(key: string, record: SentRecord): Promise<void>;
}

export function sentLogKey(prefix: string, key: string): string {
  return `${prefix}:shift-export-mail:sent:${key}`;
}

export function redisSentLog(redis: RedisClient, prefix: string): SentLog {
  return {
    async find(key) {
      const text = await redis.get(sentLogKey(prefix, key));
      if (text === null) return undefined;
      try {
        return JSON.parse(text) as SentRecord;
      } catch {
        // Someone wrote garbage under our key: the message was sent, that much is known.
        return { status: 'accepted', at: '', refused: [] };
      }
    },
    async record(key, record) {
      await redis.set(sentLogKey(prefix, key), JSON.stringify(record), 'EX', SENT_LOG_TTL_SECONDS);
    },
  };
}

export function memorySentLog(): SentLog & { readonly entries: ReadonlyMap<string, SentRecord> } {
  const entries = new Map<string, SentRecord>();
  return {
    entries,
    find: (key) => Promise.resolve(entries.get(key)),
    record: (key, record) => {
      entries.set(key, record);
      return Promise.resolve();
    },
  };
}
