// The queue's Redis over TLS, against a real redis-server with a certificate signed by a CA this
// test makes (openssl): rediss:// or REDIS_TLS=true with REDIS_TLS_CA_FILE connects; a server
// whose certificate no trusted CA signed, or whose certificate names another host, is refused.
// And a 6-node Redis Cluster over TLS (clients and cluster bus) takes jobs from the CLI.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQueueConfig } from '../../src/config/queue-config.js';
import { closeRedis, connectRedis, RedisUnavailableError } from '../../src/queue/redis-connection.js';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { testPrefix } from '../support/redis-server.js';
import { makeTestCertificates, startTlsRedisServer, type TlsRedisServer } from '../support/redis-tls.js';

let server: TlsRedisServer;
let otherName: TlsRedisServer;

beforeAll(async () => {
  [server, otherName] = await Promise.all([
    startTlsRedisServer('IP:127.0.0.1'),
    startTlsRedisServer('DNS:redis.internal.test'),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.close(), otherName?.close()]);
});

async function pingThrough(env: Record<string, string>): Promise<string> {
  const client = await connectRedis(loadQueueConfig(env).redis, {
    role: 'producer',
    connectTimeoutMs: 5000,
    maxAttempts: 1,
  });
  try {
    return await client.ping();
  } finally {
    await closeRedis(client);
  }
}

async function refusal(env: Record<string, string>): Promise<RedisUnavailableError> {
  const error = await pingThrough(env).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RedisUnavailableError)) throw new Error(`not refused: ${String(error)}`);
  return error;
}

describe('Redis over TLS', () => {
  it('connects with rediss:// and the CA of REDIS_TLS_CA_FILE', async () => {
    expect(
      await pingThrough({
        REDIS_URL: `rediss://127.0.0.1:${server.tlsPort}`,
        REDIS_TLS_CA_FILE: server.caFile,
      }),
    ).toBe('PONG');
  });

  it('connects with REDIS_TLS=true and a redis:// URL', async () => {
    expect(
      await pingThrough({
        REDIS_URL: `redis://127.0.0.1:${server.tlsPort}`,
        REDIS_TLS: 'true',
        REDIS_TLS_CA_FILE: server.caFile,
      }),
    ).toBe('PONG');
  });

  it('refuses a server whose certificate no trusted CA signed', async () => {
    const error = await refusal({ REDIS_URL: `rediss://127.0.0.1:${server.tlsPort}` });
    expect(error.message).toMatch(/^cannot reach Redis at rediss:\/\/127\.0\.0\.1:\d+ \(.*certificate/);
  });

  it('refuses a server whose certificate names another host', async () => {
    const error = await refusal({
      REDIS_URL: `rediss://127.0.0.1:${otherName.tlsPort}`,
      REDIS_TLS_CA_FILE: otherName.caFile,
    });
    expect(error.message).toContain("does not match certificate's altnames");
  });

  it('runs a command of the CLI over TLS', async () => {
    const r = await runCli(
      ['status'],
      cliEnv({ REDIS_URL: `rediss://127.0.0.1:${server.tlsPort}`, REDIS_TLS_CA_FILE: server.caFile }),
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('No jobs.\n');
    expect(r.code).toBe(0);
  });

  it('queues and lists a job on a Redis Cluster over TLS, and refuses it without the CA', async () => {
    const certs = await makeTestCertificates('IP:127.0.0.1');
    const dest = mkdtempSync(join(tmpdir(), 'redis-tls-cluster-'));
    const cluster = await startRedisCluster({ tls: certs });
    try {
      const env = {
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_CLUSTER_NODES: cluster.seed,
        REDIS_TLS: 'true',
        QUEUE_PREFIX: testPrefix(),
        EXPORT_DEST: dest,
        REDIS_CONNECT_TIMEOUT_MS: '5000',
      };
      const withCa = cliEnv({ ...env, REDIS_TLS_CA_FILE: certs.caFile });
      const queued = await runCli(['enqueue', '--from', '2024-03-30', '--to', '2024-03-30'], withCa);
      expect(queued.code, queued.stderr).toBe(0);
      const listed = await runCli(['status'], withCa);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(queued.stdout.trim());
      const refused = await runCli(['status'], cliEnv(env));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^shift-export status: REDIS_UNAVAILABLE: cannot reach Redis Cluster at 127\.0\.0\.1:\d+ \(TLS\)[^\n]*\(REDIS_CLUSTER_NODES\)\n$/,
      );
    } finally {
      await cluster.close();
      rmSync(certs.dir, { recursive: true, force: true });
      rmSync(dest, { recursive: true, force: true });
    }
  });
});
