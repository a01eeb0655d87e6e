// `npm test` on a machine without redis-server: the first thing it says is how to get it, not
// "No test files found" and a stack trace (test/support/global-setup.ts).

import { execFile } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDIS_SERVER_HINT } from './support/global-setup.js';
import { tempFolderForTest } from './support/temp-folder.js';

const ROOT = new URL('..', import.meta.url).pathname;

describe('the test suite without redis-server', () => {
  it('stops with the one-line hint and exit code 1', async () => {
    // A PATH with node and nothing else, so redis-server is not found.
    const bin = tempFolderForTest('no-redis-');
    symlinkSync(process.execPath, join(bin, 'node'));
    const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
    const run = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [vitest, 'run', 'test/one-line.test.ts'],
        { cwd: ROOT, env: { PATH: bin, HOME: tmpdir(), NO_COLOR: '1' } },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : Number(error.code), output: `${stdout}${stderr}` }),
      );
    });
    expect(run.code).toBe(1);
    const lines = run.output.split('\n').filter((l) => l.trim() !== '' && !l.includes(' RUN '));
    expect(lines[0]).toBe(REDIS_SERVER_HINT);
    expect(run.output).not.toContain('No test files found');
    expect(run.output).not.toMatch(/\n\s+at |Unhandled Error/);
  });
});
