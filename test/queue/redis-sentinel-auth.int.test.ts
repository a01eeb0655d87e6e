// Sentinels that ask for a password of their own (`requirepass` on each Sentinel): `status` finds
// the primary through them with REDIS_SENTINEL_PASSWORD_FILE, and without it stops with one line
// that names REDIS_SENTINELS; the password is shown nowhere.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '../support/redis-sentinel.js';
import { testPrefix } from '../support/redis-server.js';

const SENTINEL_PASSWORD = 'sentinel-pw-4c1f-do-not-leak';

let group: RedisSentinelGroup;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  group = await startRedisSentinelGroup({ sentinelPassword: SENTINEL_PASSWORD });
  dir = mkdtempSync(join(tmpdir(), 'sentinel-auth-'));
  writeFileSync(join(dir, 'sentinel-password'), `${SENTINEL_PASSWORD}\n`);
  env = {
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_SENTINELS: group.sentinels,
    REDIS_SENTINEL_NAME: group.name,
    QUEUE_PREFIX: testPrefix(),
    REDIS_CONNECT_TIMEOUT_MS: '5000',
  };
});

afterAll(async () => {
  await group?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('Sentinels with a password of their own', () => {
  it('are asked with REDIS_SENTINEL_PASSWORD_FILE', async () => {
    const r = await runCli(
      ['status'],
      cliEnv({ ...env, REDIS_SENTINEL_PASSWORD_FILE: join(dir, 'sentinel-password') }),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`).not.toContain(SENTINEL_PASSWORD);
  });

  it('refuse a client without it: one line naming REDIS_SENTINELS, no password in it', async () => {
    const r = await runCli(['status'], cliEnv(env));
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^shift-export status: REDIS_UNAVAILABLE: .*REDIS_SENTINELS/);
    expect(r.stderr).not.toContain(SENTINEL_PASSWORD);
  });
});
