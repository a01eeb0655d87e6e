// A temp folder for one test: made in the test file's TMPDIR and removed when the test finishes,
// passed or failed, so the leak guard (leak-guard.ts) finds nothing left of it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** mkdtemp in os.tmpdir() with `prefix`; call it inside a test. */
export function tempFolderForTest(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(path, { recursive: true, force: true }));
  return path;
}
