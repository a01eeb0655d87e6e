// A real Sentinel group for tests on loopback: a primary, one replica and three Sentinels (each
// `redis-server <conf> --sentinel`) on free ports, with a short down-after so a killed primary's
// replica is promoted within seconds. Tests ask which node is the primary, kill it, wait for the
// Sentinels to agree on the promoted one, and close() it all (awaited).

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './redis-cluster.js';
import { freePort, serverArgs, startRedisProcess, stopChild, withRedisAt } from './redis-server.js';

export const SENTINEL_PRIMARY_NAME = 'shift-export-primary';
/** How long the Sentinels wait before they call an unanswering primary down. */
export const SENTINEL_DOWN_AFTER_MS = 1000;

export interface RedisSentinelGroup {
  /** `127.0.0.1:port,…` of the three Sentinels, what REDIS_SENTINELS would hold. */
  readonly sentinels: string;
  readonly name: string;
  /** The port of the primary the Sentinels name now. */
  primary(): Promise<number>;
  /** SIGKILLs the node on `port` (a crash). */
  kill(port: number): Promise<void>;
  /** Waits until every Sentinel names a primary other than `formerPort` and that node says it is one. */
  waitForNewPrimary(formerPort: number, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

function ask<T>(port: number, password: string | undefined, ...command: string[]): Promise<T> {
  return withRedisAt(port, (redis) => redis.call(command[0]!, ...command.slice(1)) as Promise<T>, password);
}

export interface RedisSentinelOptions {
  /** The Sentinels' own password (`requirepass`, and `sentinel-pass` among themselves). */
  readonly sentinelPassword?: string;
}

export async function startRedisSentinelGroup(
  options: RedisSentinelOptions = {},
): Promise<RedisSentinelGroup> {
  const sentinelPassword = options.sentinelPassword;
  const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  const children = new Map<number, ChildProcess>();
  const sentinelPorts: number[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all([...children.values()].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await freePort();
    children.set(primaryPort, await startRedisProcess(serverArgs(primaryPort, dir), primaryPort));
    const replicaPort = await freePort();
    children.set(
      replicaPort,
      await startRedisProcess(
        [...serverArgs(replicaPort, dir), '--replicaof', '127.0.0.1', String(primaryPort)],
        replicaPort,
      ),
    );
    await waitFor(
      async () =>
        /master_link_status:up/.test(await ask<string>(replicaPort, undefined, 'INFO', 'replication')),
      20_000,
      'the replica did not sync with the primary',
    );
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          'loglevel warning',
          `sentinel monitor ${SENTINEL_PRIMARY_NAME} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_PRIMARY_NAME} ${SENTINEL_DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_PRIMARY_NAME} 10000`,
          `sentinel parallel-syncs ${SENTINEL_PRIMARY_NAME} 1`,
          ...(sentinelPassword === undefined
            ? []
            : [`requirepass ${sentinelPassword}`, `sentinel sentinel-pass ${sentinelPassword}`]),
          '',
        ].join('\n'),
      );
      children.set(port, await startRedisProcess([conf, '--sentinel'], port));
      sentinelPorts.push(port);
    }
    // A failover needs Sentinels that know the replica and each other (hello messages, ~2 s).
    await waitFor(
      async () => {
        for (const port of sentinelPorts) {
          const replicas = await ask<unknown[]>(
            port,
            sentinelPassword,
            'SENTINEL',
            'REPLICAS',
            SENTINEL_PRIMARY_NAME,
          );
          const others = await ask<unknown[]>(
            port,
            sentinelPassword,
            'SENTINEL',
            'SENTINELS',
            SENTINEL_PRIMARY_NAME,
          );
          if (replicas.length !== 1 || others.length !== 2) return false;
        }
        return true;
      },
      30_000,
      'the Sentinels did not discover the replica and each other',
    );
  } catch (error) {
    await closeAll();
    throw error;
  }

  const killed = new Set<number>();
  const liveSentinels = (): number[] => sentinelPorts.filter((p) => !killed.has(p));
  const primaries = async (): Promise<number[]> =>
    Promise.all(
      liveSentinels().map(async (port) => {
        const [, primaryPort] = await ask<[string, string]>(
          port,
          sentinelPassword,
          'SENTINEL',
          'GET-MASTER-ADDR-BY-NAME',
          SENTINEL_PRIMARY_NAME,
        );
        return Number(primaryPort);
      }),
    );

  return {
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    name: SENTINEL_PRIMARY_NAME,
    async primary() {
      const named = await primaries();
      if (!named.every((p) => p === named[0])) throw new Error(`the Sentinels disagree: ${named.join(', ')}`);
      return named[0]!;
    },
    async kill(port) {
      const child = children.get(port);
      if (child === undefined) throw new Error(`no node of the group on port ${port}`);
      killed.add(port);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
    async waitForNewPrimary(formerPort, timeoutMs = 30_000) {
      let found = formerPort;
      await waitFor(
        async () => {
          const named = await primaries();
          found = named[0] ?? formerPort;
          if (found === formerPort || !named.every((p) => p === found)) return false;
          const role = await ask<unknown[]>(found, undefined, 'ROLE');
          return role[0] === 'master';
        },
        timeoutMs,
        `the Sentinels did not promote a replica of the primary on port ${formerPort}`,
      );
      return found;
    },
    close: closeAll,
  };
}
