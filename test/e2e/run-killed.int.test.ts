// A `run` that is SIGKILLed mid-export leaves its `.partial` folder (nothing runs after SIGKILL);
// the next `run` into the same folder removes it when it starts, and publishes.

import { spawn } from 'node:child_process';
import { readFileSync, watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { SANDBOX_ADMIN_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { tempFolderForTest } from '../support/temp-folder.js';

const DAY = '2024-03-30';

function readOwnerMarkerSync(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}
/**
 * Resolves with the name of the first `.partial` folder in `dest` once its owner marker is whole:
 * the export has begun for good. Two plain watchers rather than one recursive one: Node's recursive
 * watch on Linux adds a new folder's watch after the folder appears and can miss a file written
 * into it at once (a CI run waited for it forever); here the folder is checked right after its
 * watch is set.
 */
function whenOwnerMarkerWritten(dest: string): Promise<string> {
  return new Promise((resolve) => {
    const outer = watch(dest, (_event, name) => {
      if (name?.endsWith('.partial') !== true) return;
      outer.close();
      const marker = join(dest, name, '.shift-export');
      const check = (): void => {
        if (readOwnerMarkerSync(marker) === undefined) return;
        inner.close();
        resolve(name);
      };
      const inner = watch(join(dest, name), check);
      check();
    });
  });
}

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});

afterAll(async () => {
  await sandbox.close();
});

describe('run after a run that was SIGKILLed', () => {
  it('removes the killed run’s .partial folder at its start', async () => {
    const dest = tempFolderForTest('run-killed-');
    const env = cliEnv({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_ADMIN_TOKEN });
    const args = ['run', '--from', DAY, '--to', DAY, '--format', 'csv', '--dest', dest];
    // The upstream holds its answer: the export has begun (its .partial exists) and waits.
    sandbox.setFaults({ wfm_timers: { latencyMs: 60_000 } });
    const partialSeen = whenOwnerMarkerWritten(dest);
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, s) => resolve(s)));
    const partial = await partialSeen;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(await readdir(dest)).toContain(partial);

    sandbox.clearFaults();
    const again = await runCli(args, env);
    expect(again.code).toBe(0);
    expect((await readdir(dest)).filter((n) => n.endsWith('.partial'))).toEqual([]);
  });
});
