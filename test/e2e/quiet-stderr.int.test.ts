// A first run of `shift-export api` on an S3 destination, as docker-compose starts it: its stderr is
// JSON lines only. Node prints process warnings (fastify's deprecations, the AWS SDK's notice about
// the Node version) as free text unless they are logged; a log shipper would choke on them.
// A first `npm start` (the demo), with its output piped as an editor's terminal or a CI log does:
// the readable summary only, the JSON log lines when LOG_LEVEL asks for them.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { listeningPort } from '../reliability/support/api-child.js';
import { tempFolderForTest } from '../support/temp-folder.js';

let redis: RedisServer;
let s3: TestS3Server;

beforeAll(async () => {
  [redis, s3] = await Promise.all([startRedisServer(), startTestS3Server()]);
});

afterAll(async () => {
  await Promise.all([redis.stop(), s3.cleanup().then(() => s3.stop())]);
});

describe('shift-export api on a first run', () => {
  it('writes nothing but JSON lines to stderr, process warnings included', async () => {
    const bucket = await s3.createBucket();
    const secrets = tempFolderForTest('quiet-');
    writeFileSync(join(secrets, 'key-id'), `${s3.accessKeyId}\n`);
    writeFileSync(join(secrets, 'secret'), `${s3.secretAccessKey}\n`);
    writeFileSync(join(secrets, 'api-tokens'), 'quiet-stderr-token-0123\n');
    const child = spawn(process.execPath, [BIN, 'api'], {
      env: cliEnv({
        LOG_LEVEL: 'info',
        API_HOST: '127.0.0.1',
        API_PORT: '0',
        API_TOKENS_FILE: join(secrets, 'api-tokens'),
        REDIS_URL: redis.url,
        EXPORT_DEST: `s3://${bucket}/exports`,
        S3_ENDPOINT: s3.endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID_FILE: join(secrets, 'key-id'),
        S3_SECRET_ACCESS_KEY_FILE: join(secrets, 'secret'),
      }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const port = await listeningPort(child);
      // Healthy means Redis answered and the S3 client (with its Node-version check) listed the bucket.
      let status = 0;
      let body = '';
      for (let attempt = 0; attempt < 200 && status !== 200 && child.exitCode === null; attempt++) {
        [status, body] = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          async (r) => [r.status, await r.text()] as const,
          () => [0, ''] as const,
        );
        // Readiness polling of a process we just spawned, not test synchronisation.
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status, body).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const lines = stderr.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(stderr).not.toContain('FSTDEP');
    if (Number(process.versions.node.split('.')[0]) < 22) {
      // Below Node 22 the AWS SDK warns; the warning is a log line like any other.
      const warnings = lines.map((l) => JSON.parse(l) as { level: number; msg: string; warning?: object });
      expect(warnings.some((w) => w.level === 40 && w.warning !== undefined && /node >=22/.test(w.msg))).toBe(
        true,
      );
    }
  });
});

describe('shift-export demo, its output piped', () => {
  /** cliEnv without its LOG_LEVEL: the demo as a person starts it. */
  function demoEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    const env = cliEnv(extra);
    if (extra['LOG_LEVEL'] === undefined) delete env['LOG_LEVEL'];
    return env;
  }

  it('prints its readable summary and no log lines at the default level', async () => {
    const dest = tempFolderForTest('demo-');
    const run = await runCli(['demo', '--rows', '500', '--format', 'csv', '--dest', dest], demoEnv({}));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Sandbox WFM API on http:\/\/127\.0\.0\.1:\d+ with 500 shifts; exporting /);
    expect(run.stdout).toMatch(/^Export \S+ of \S+ published to /m);
    expect(run.stdout).not.toContain('{');
  });

  it('logs the export as JSON lines on stderr when LOG_LEVEL=info asks for them', async () => {
    const dest = tempFolderForTest('demo-');
    const run = await runCli(
      ['demo', '--rows', '500', '--format', 'csv', '--dest', dest],
      demoEnv({ LOG_LEVEL: 'info' }),
    );
    expect(run.code).toBe(0);
    const lines = run.stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { msg?: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['export started', 'export published']));
  });
});
