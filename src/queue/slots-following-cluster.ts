// The Redis Cluster client every queue user gets (redis-connection.ts): ioredis's Cluster, with the
// periodic look-up of the slots on a timer of our own instead of ioredis's `slotsRefreshInterval`.
//
// Why: ioredis arms the next round of `slotsRefreshInterval` when a round's look-up comes back,
// even when the client was closed (quit or disconnect) while that look-up was under way. The
// closed client then looks its slots up forever, and that timer keeps the process alive. A
// one-shot command such as `enqueue --wait` printed its result, closed its clients and never
// exited (seen 2026-11-28 on a loaded 2-core machine: the Redis Cluster test's export after a
// failover "did not end within 120 s"; a look-up takes long there, so a close often falls inside
// one). Present in ioredis 5.11.1 and in its main branch of 2026-08 (`resetNodesRefreshInterval`).
//
// Our timer looks the slots up only while the client is ready, stops when it ends, and never keeps
// a process alive (unref). Duplicates — BullMQ's blocking connections of a worker and of
// QueueEvents are `duplicate()`s of the client we hand it — are made the same way.

import { Cluster, type ClusterNode, type ClusterOptions } from 'ioredis';

export class SlotsFollowingCluster extends Cluster {
  readonly #startupNodes: ClusterNode[];
  readonly #everyMs: number;

  /** A cluster client that looks its slots up again every `everyMs` while it is ready. */
  constructor(startupNodes: ClusterNode[], options: ClusterOptions, everyMs: number) {
    // 0: ioredis's own timer never starts.
    super(startupNodes, { ...options, slotsRefreshInterval: 0 });
    this.#startupNodes = startupNodes;
    this.#everyMs = everyMs;
    let timer: NodeJS.Timeout | undefined;
    this.on('ready', () => {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        // A look-up in flight is not started twice (ioredis joins it); none while reconnecting.
        if (this.status === 'ready') this.refreshSlotsCache();
      }, everyMs);
      timer.unref();
    });
    // A client BullMQ reconnects after `end` is ready again, and followed again.
    this.on('end', () => {
      clearInterval(timer);
      timer = undefined;
    });
  }

  /** As Cluster.duplicate (same startup nodes and options unless given), following its slots too. */
  override duplicate(
    overrideStartupNodes: ClusterNode[] = [],
    overrideOptions: ClusterOptions = {},
  ): SlotsFollowingCluster {
    return new SlotsFollowingCluster(
      overrideStartupNodes.length > 0 ? overrideStartupNodes : [...this.#startupNodes],
      { ...this.options, ...overrideOptions },
      this.#everyMs,
    );
  }
}
