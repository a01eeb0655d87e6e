// A real 6-node Redis Cluster for tests (3 primaries, 3 replicas) on loopback: six redis-server
// processes with --cluster-enabled on free ports (each port + 10000, the cluster bus, free too),
// joined by `redis-cli --cluster create … --cluster-replicas 1`, with a short node timeout so a
// killed primary's replica takes over within seconds. Tests ask it where a slot lives, kill that
// primary, wait for the promotion, list the keys on every primary, and close() it (awaited). With
// `tls` the nodes serve clients and their bus over TLS (redis-tls.ts makes the certificates).

import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serverArgs, startRedisProcess, stopChild, withRedisAt } from './redis-server.js';
import { tlsArgs, type TestCertificates } from './redis-tls.js';

const run = promisify(execFile);

/** Short, so a failover takes a few seconds; long enough not to flap on two busy cores. */
export const CLUSTER_NODE_TIMEOUT_MS = 1500;

export interface ClusterNodeInfo {
  readonly id: string;
  readonly port: number;
  /** The id of the primary a replica follows ('-' for a primary). */
  readonly primaryId: string;
  readonly role: 'primary' | 'replica';
  readonly failed: boolean;
  /** Slot ranges of a primary, [first, last] inclusive. */
  readonly slots: readonly (readonly [number, number])[];
}

export interface RedisClusterOptions {
  /**
   * Serve clients and the cluster bus over TLS with these certificates (tls-cluster). Each node
   * keeps a plain port too, which only this helper uses.
   */
  readonly tls?: TestCertificates;
}

export interface RedisCluster {
  /** The nodes' plain-text ports (what this helper's methods take and return). */
  readonly ports: readonly number[];
  /** `127.0.0.1:port` of one node (its TLS port with `tls`), what REDIS_CLUSTER_NODES would hold. */
  readonly seed: string;
  /** The slot of `key`, as the cluster computes it. */
  keySlot(key: string): Promise<number>;
  /** The port of the primary serving `slot`, as the live nodes agree. */
  primaryOf(slot: number): Promise<number>;
  /** SIGKILLs the node on `port` (a crash: no goodbye to the cluster). */
  kill(port: number): Promise<void>;
  /** Waits until the live nodes agree that a node other than `formerPort` serves `slot`, and the cluster is ok. */
  waitForNewPrimary(slot: number, formerPort: number, timeoutMs?: number): Promise<number>;
  /** Every key on every live primary, by port. */
  keysByPrimary(): Promise<Map<number, string[]>>;
  close(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Six consecutive cluster ports below 55536 whose cluster-bus ports (+10000) are free as well, and
 * with `extra`, six more after them (the plain ports of a TLS cluster).
 */
async function freeClusterPorts(extra: boolean): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    const ports = Array.from({ length: 6 }, (_, i) => base + i);
    const more = extra ? ports.map((p) => p + 6) : [];
    const free = await Promise.all([
      ...ports.flatMap((p) => [portFree(p), portFree(p + 10_000)]),
      ...more.map(portFree),
    ]);
    if (free.every(Boolean)) return [...ports, ...more];
  }
  throw new Error('no six free ports (with their cluster-bus ports) found');
}

/** CLUSTER NODES as seen from `port`. */
export async function clusterNodes(port: number): Promise<ClusterNodeInfo[]> {
  const text = await withRedisAt(port, (r) => r.call('CLUSTER', 'NODES') as Promise<string>);
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', address = '', flags = '', primaryId = '-', , , , , ...slots] = line.split(' ');
      const nodePort = Number(address.split('@')[0]?.split(':').at(-1));
      return {
        id,
        port: nodePort,
        primaryId,
        role: flags.includes('master') ? 'primary' : 'replica',
        failed: /\bfail\b/.test(flags.replace(/,/g, ' ')),
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [first, last = first] = s.split('-').map(Number);
            return [first!, last!] as const;
          }),
      } satisfies ClusterNodeInfo;
    });
}

async function clusterOk(port: number): Promise<boolean> {
  const info = await withRedisAt(port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>);
  return /cluster_state:ok/.test(info) && /cluster_known_nodes:6\b/.test(info);
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const tls = options.tls;
  /** By plain port. */
  const children = new Map<number, ChildProcess>();
  const closeAll = async (): Promise<void> => {
    await Promise.all([...children.values()].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  };
  /** The ports the cluster announces (TLS ports with `tls`) and the plain ones, node by node. */
  let clusterPorts: number[] = [];
  let ports: number[] = [];
  try {
    for (let attempt = 0; ; attempt++) {
      const found = await freeClusterPorts(tls !== undefined);
      clusterPorts = found.slice(0, 6);
      ports = tls === undefined ? clusterPorts : found.slice(6);
      try {
        for (const [i, port] of ports.entries()) {
          const clusterArgs = [
            '--dir',
            dir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--cluster-node-timeout',
            String(CLUSTER_NODE_TIMEOUT_MS),
            // Redis 7 waits 5 s before a diskless full sync, hoping for more replicas; a replica
            // still without its first sync refuses to take over (and should: it holds nothing).
            '--repl-diskless-sync-delay',
            '0',
          ];
          const tlsNode =
            tls === undefined
              ? []
              : [...tlsArgs(clusterPorts[i]!, tls), '--tls-cluster', 'yes', '--tls-replication', 'yes'];
          const child = await startRedisProcess([...serverArgs(port), ...clusterArgs, ...tlsNode], port);
          children.set(port, child);
        }
        break;
      } catch (error) {
        // Another process took a port between the probe and the spawn: start over elsewhere.
        await Promise.all([...children.values()].map((c) => stopChild(c)));
        children.clear();
        if (attempt >= 3) throw error;
      }
    }
    await run(
      'redis-cli',
      [
        ...(tls === undefined ? [] : ['--tls', '--cacert', tls.caFile]),
        '--cluster',
        'create',
        ...clusterPorts.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await waitFor(
      async () => (await Promise.all(ports.map(clusterOk))).every(Boolean),
      30_000,
      'the cluster did not report cluster_state:ok on all six nodes',
    );
    // Until its first sync a replica is empty and cannot be promoted: a primary killed before then
    // would take its slots down for good (what made a CI run wait 30 s for a promotion).
    await waitFor(
      async () => (await Promise.all(ports.map(replicaInSync))).every(Boolean),
      30_000,
      'the replicas did not finish their first sync',
    );
  } catch (error) {
    await closeAll();
    throw error;
  }

  const live = (): number[] => ports.filter((p) => children.get(p)?.exitCode === null && !killed.has(p));
  const killed = new Set<number>();
  const primaryAsSeenBy = async (port: number, slot: number): Promise<number | undefined> => {
    const nodes = await clusterNodes(port);
    return nodes.find(
      (n) => n.role === 'primary' && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b),
    )?.port;
  };
  const agreedPrimary = async (slot: number): Promise<number | undefined> => {
    const views = await Promise.all(live().map((p) => primaryAsSeenBy(p, slot).catch(() => undefined)));
    const first = views[0];
    return views.every((v) => v === first) ? first : undefined;
  };

  return {
    ports,
    seed: `127.0.0.1:${clusterPorts[0]}`,
    keySlot: (key) => withRedisAt(live()[0]!, (r) => r.call('CLUSTER', 'KEYSLOT', key) as Promise<number>),
    async primaryOf(slot) {
      const port = await agreedPrimary(slot);
      if (port === undefined) throw new Error(`the nodes do not agree on the primary of slot ${slot}`);
      return port;
    },
    async kill(port) {
      const child = children.get(port);
      if (child === undefined) throw new Error(`no cluster node on port ${port}`);
      killed.add(port);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
    async waitForNewPrimary(slot, formerPort, timeoutMs = 60_000) {
      let found: number | undefined;
      const promoted = async (): Promise<boolean> => {
        found = await agreedPrimary(slot);
        if (found === undefined || found === formerPort) return false;
        return (await Promise.all(live().map((p) => clusterInfoOk(p)))).every(Boolean);
      };
      const failure = `no replica took over slot ${slot} from the primary on port ${formerPort}`;
      const automaticMs = Math.min(AUTOMATIC_FAILOVER_WAIT_MS, timeoutMs / 2);
      try {
        await waitFor(promoted, automaticMs, failure);
        return found!;
      } catch {
        // Redis's own election did not finish in time (on two cores loaded by the rest of the
        // suite it can lose rounds). What the tests check is our clients after a promotion, not
        // Redis's election timing: say what the nodes saw, then promote the (synced) replica by
        // hand, as an operator would.
        const views = await describeNodes(live());
        const replica = await replicaOf(live(), formerPort);
        process.stderr.write(
          `redis-cluster test helper: ${failure} within ${automaticMs / 1000} s; ` +
            `forcing CLUSTER FAILOVER TAKEOVER on port ${replica}\n${views}\n`,
        );
        await withRedisAt(replica, (r) => r.call('CLUSTER', 'FAILOVER', 'TAKEOVER'));
      }
      await waitFor(promoted, timeoutMs - automaticMs, `${failure} (even after TAKEOVER)`);
      return found!;
    },
    async keysByPrimary() {
      const byPort = new Map<number, string[]>();
      for (const port of live()) {
        const nodes = await clusterNodes(port);
        const me = nodes.find((n) => n.port === port);
        if (me?.role !== 'primary') continue;
        byPort.set(port, await withRedisAt(port, (r) => r.keys('*')));
      }
      return byPort;
    },
    close: closeAll,
  };
}

/** How long waitForNewPrimary leaves the promotion to Redis before it forces one. */
const AUTOMATIC_FAILOVER_WAIT_MS = 20_000;

/** CLUSTER NODES as each of `ports` reports it, for a failure message. */
async function describeNodes(ports: readonly number[]): Promise<string> {
  const views = await Promise.all(
    ports.map(async (port) => {
      const text = await withRedisAt(port, (r) => r.call('CLUSTER', 'NODES') as Promise<string>).catch(
        (error: unknown) => String(error),
      );
      return `-- as seen by ${port}:\n${text.trim()}`;
    }),
  );
  return views.join('\n');
}

/** The live replica that followed the primary on `primaryPort`. */
async function replicaOf(ports: readonly number[], primaryPort: number): Promise<number> {
  for (const port of ports) {
    const nodes = await clusterNodes(port).catch(() => undefined);
    const primary = nodes?.find((n) => n.port === primaryPort);
    const replica = nodes?.find((n) => n.primaryId === primary?.id && ports.includes(n.port));
    if (replica !== undefined) return replica.port;
  }
  throw new Error(`no live replica of the primary on port ${primaryPort} found`);
}

/** True for a primary, and for a replica whose link to its primary is up with no sync under way. */
async function replicaInSync(port: number): Promise<boolean> {
  const info = await withRedisAt(port, (r) => r.call('INFO', 'replication') as Promise<string>);
  if (/role:master/.test(info)) return true;
  return /master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info);
}

async function clusterInfoOk(port: number): Promise<boolean> {
  const info = await withRedisAt(port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>);
  return /cluster_state:ok/.test(info);
}

/** Polls `check` until it holds: waiting for servers we started (a promotion, a join), not for our code. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  failure: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // a node that is going away answers nothing: ask again
    }
    if (Date.now() > deadline) throw new Error(`${failure} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
