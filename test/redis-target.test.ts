import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadQueueConfig } from '../src/config/queue-config.js';
import { ConfigError } from '../src/errors.js';
import { parseHostPorts } from '../src/config/redis-target.js';

const SECRET = 'Sup3rSecret-r3d1s';
const dir = mkdtempSync(join(tmpdir(), 'redis-target-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const passwordFile = join(dir, 'password');
writeFileSync(passwordFile, `  ${SECRET}\n`);
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

function configError(env: Record<string, string>): ConfigError {
  try {
    loadQueueConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

describe('the Redis target', () => {
  it('is the single primary of REDIS_URL when no cluster or Sentinels are set', () => {
    const { redis } = loadQueueConfig({ REDIS_URL: 'redis://:pw@cache:6380/1' });
    expect(redis).toMatchObject({ kind: 'single', url: 'redis://:pw@cache:6380/1', tls: undefined });
    expect(redis.where).toBe('Redis at redis://cache:6380/1');
    expect(redis.variable).toBe('REDIS_URL');
  });

  it('turns TLS on for rediss:// and for REDIS_TLS, with the CA of REDIS_TLS_CA_FILE', () => {
    expect(loadQueueConfig({ REDIS_URL: 'rediss://cache:6380' }).redis.tls).toEqual({ ca: undefined });
    const { redis } = loadQueueConfig({ REDIS_TLS: 'true', REDIS_TLS_CA_FILE: caFile });
    expect(redis.tls?.ca).toContain('BEGIN CERTIFICATE');
  });

  it('is the cluster of REDIS_CLUSTER_NODES, whatever REDIS_URL says', () => {
    const { redis } = loadQueueConfig({
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CLUSTER_NODES: ' 10.0.0.5:7000, redis-b.internal:7001 ,[::1]:7002',
      REDIS_PASSWORD_FILE: passwordFile,
      REDIS_TLS: 'yes',
    });
    expect(redis).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.5', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      password: SECRET,
      tls: { ca: undefined },
      variable: 'REDIS_CLUSTER_NODES',
    });
    expect(redis.where).toBe('Redis Cluster at 10.0.0.5:7000,redis-b.internal:7001,[::1]:7002 (TLS)');
  });

  it('is the primary the Sentinels name', () => {
    const { redis } = loadQueueConfig({
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_NAME: 'queue-primary',
    });
    expect(redis).toMatchObject({
      kind: 'sentinel',
      name: 'queue-primary',
      sentinelPassword: undefined,
      variable: 'REDIS_SENTINELS',
    });
    expect(redis.where).toBe('Redis primary "queue-primary" via Sentinels s1:26379,s2:26379');
  });

  it("takes the Sentinels' own password from REDIS_SENTINEL_PASSWORD_FILE, apart from the primary's", () => {
    const sentinelPasswordFile = join(dir, 'sentinel-password');
    writeFileSync(sentinelPasswordFile, 'S3ntinel-only\n');
    const { redis } = loadQueueConfig({
      REDIS_SENTINELS: 's1:26379',
      REDIS_SENTINEL_NAME: 'queue-primary',
      REDIS_SENTINEL_PASSWORD_FILE: sentinelPasswordFile,
      REDIS_PASSWORD_FILE: passwordFile,
    });
    expect(redis).toMatchObject({ kind: 'sentinel', sentinelPassword: 'S3ntinel-only', password: SECRET });
    expect(redis.where).not.toContain('S3ntinel-only');
  });

  it.each([
    [{ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_SENTINELS: 'b:2' }, 'REDIS_SENTINEL_NAME'],
    [{ REDIS_SENTINEL_NAME: 'mymaster' }, 'REDIS_SENTINELS'],
    [{ REDIS_CLUSTER_NODES: 'a:1', QUEUE_PREFIX: 'plain' }, 'QUEUE_PREFIX'],
    [{ REDIS_CLUSTER_NODES: 'a:1,b' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: 'a:99999' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_SENTINELS: 'redis://b:2', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS'],
    [{ REDIS_TLS_CA_FILE: caFile }, 'REDIS_TLS_CA_FILE'],
    [{ REDIS_TLS: 'true', REDIS_TLS_CA_FILE: join(dir, 'absent.pem') }, 'REDIS_TLS_CA_FILE'],
    [{ REDIS_TLS: 'true', REDIS_TLS_CA_FILE: passwordFile }, 'REDIS_TLS_CA_FILE'],
    [{ REDIS_TLS: 'false', REDIS_URL: 'rediss://cache:6380' }, 'REDIS_TLS'],
    [{ REDIS_TLS: 'maybe' }, 'REDIS_TLS'],
    [{ REDIS_PASSWORD_FILE: join(dir, 'absent') }, 'REDIS_PASSWORD_FILE'],
    [{ REDIS_SENTINEL_PASSWORD_FILE: passwordFile }, 'REDIS_SENTINEL_PASSWORD_FILE'],
    [
      { REDIS_SENTINELS: 'b:2', REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_PASSWORD_FILE: join(dir, 'absent') },
      'REDIS_SENTINEL_PASSWORD_FILE',
    ],
    [
      { REDIS_PASSWORD_FILE: passwordFile, REDIS_URL: `redis://:${SECRET}@cache:6379` },
      'REDIS_PASSWORD_FILE',
    ],
  ])('stops at a bad combination with one line naming the variable: %j', (env, variable) => {
    const line = configError(env).toOneLine();
    expect(line).toMatch(new RegExp(`^CONFIG_INVALID: [^\\n]*\\b${variable}\\b`));
    expect(line).not.toContain('\n');
    expect(line).not.toContain(SECRET);
  });

  it('never echoes a seed that could hold a password', () => {
    const line = configError({ REDIS_CLUSTER_NODES: `10.0.0.5:7000,:${SECRET}@10.0.0.6:7000` }).toOneLine();
    expect(line).toBe(
      'CONFIG_INVALID: REDIS_CLUSTER_NODES is invalid: entry 2 is not host:port (e.g. 10.0.0.5:6379), comma-separated',
    );
    const pasted = configError({ REDIS_PASSWORD_FILE: SECRET }).toOneLine();
    expect(pasted).toBe(
      'CONFIG_INVALID: REDIS_PASSWORD_FILE cannot be read (ENOENT): check the path it names',
    );
  });

  it('parses host:port lists, IPv6 in brackets', () => {
    expect(parseHostPorts('[fe80::1]:6379', 'X')).toEqual([{ host: 'fe80::1', port: 6379 }]);
    expect(() => parseHostPorts(' , ', 'X')).toThrow('X names no host:port');
    expect(() => parseHostPorts('host:0', 'X')).toThrow('"host:0" is not host:port');
  });
});
