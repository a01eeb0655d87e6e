// Runs the leak guard (leak-guard.ts) around every test and every file. It runs after the file's
// own afterEach/afterAll (vitest runs after-hooks in reverse order), so their cleanup counts.
// The file's TMPDIR is set here, before the test file is imported, so its module-level tmpdir()
// calls see it too.

import { afterAll, afterEach, beforeEach } from 'vitest';
import { checkReleased, checkTempDirEmpty, enterScope, useFileTempDir } from './leak-guard.js';

useFileTempDir();

beforeEach(() => enterScope('test'));

afterEach(async () => {
  enterScope('file');
  await checkReleased('test');
});

// Servers and children first: a child still running could yet write to the temp folder.
afterAll(async () => {
  const failures: string[] = [];
  for (const check of [() => checkReleased('file'), checkTempDirEmpty]) {
    try {
      await check();
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
});
