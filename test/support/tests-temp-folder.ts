// The one folder under the system temp folder that a vitest run's test files make their own temp
// folders in (leak-guard.ts, useFileTempDir): a file that leaves something there fails, and the
// folder goes when vitest exits, with whatever a file whose tests were all skipped left empty.
// Both configurations (vitest.config.ts, the reliability suite's) call it, so neither run leaves an
// entry in the system temp folder.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function useTestsTempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'shift-export-tests-'));
  process.env['SHIFT_EXPORT_TESTS_TMPDIR'] = folder;
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
