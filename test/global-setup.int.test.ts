// `npm test` on a machine without redis-server: the first thing it says is how to get it, not
// "No test files found" and a stack trace (test/support/global-setup.ts). The unit tests run there.

import { execFile } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDIS_SERVER_HINT } from './support/global-setup.js';
import { tempFolderForTest } from './support/temp-folder.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** vitest with `args` where PATH holds node and nothing else, so redis-server is not found. */
async function vitestWithoutRedis(args: readonly string[]): Promise<{ code: number; output: string }> {
  const bin = tempFolderForTest('no-redis-');
  symlinkSync(process.execPath, join(bin, 'node'));
  const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [vitest, 'run', ...args],
      { cwd: ROOT, env: { PATH: bin, HOME: tmpdir(), TMPDIR: tmpdir(), NO_COLOR: '1' } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code), output: `${stdout}${stderr}` }),
    );
  });
}

describe('the test suite without redis-server', () => {
  it('stops with the one-line hint and exit code 1', async () => {
    const run = await vitestWithoutRedis(['test/healthcheck.int.test.ts']);
    expect(run.code).toBe(1);
    const lines = run.output.split('\n').filter((l) => l.trim() !== '' && !l.includes(' RUN '));
    expect(lines[0]).toBe(REDIS_SERVER_HINT);
    expect(run.output).not.toContain('No test files found');
    expect(run.output).not.toMatch(/\n\s+at |Unhandled Error/);
  });

  it('runs the unit tests (npm run test:unit), which need no server', async () => {
    const run = await vitestWithoutRedis(['--project', 'unit', 'test/one-line.test.ts']);
    expect(run.output).not.toContain(REDIS_SERVER_HINT);
    expect(run.output).toMatch(/Test Files +1 passed/);
    expect(run.code).toBe(0);
  });
});
