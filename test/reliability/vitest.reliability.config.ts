// `npm run test:reliability`: the fault-injection suite. Scenario files are
// `*.scenario.ts` so that `npm test` (which runs `*.test.ts`) does not pick up the long ones. Each
// scenario records one table row; the global teardown prints the table.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { useTestsTempFolder } from '../support/tests-temp-folder.js';

// As in vitest.config.ts: each scenario file gets a TMPDIR of its own in here, and the leak guard
// fails a file that leaves a connection, server, child process or temp entry behind.
useTestsTempFolder();
const resultsFile = join(tmpdir(), `shift-export-reliability-${process.pid}.jsonl`);
process.env['RELIABILITY_RESULTS'] = resultsFile;

export default defineConfig({
  test: {
    include: ['test/reliability/**/*.scenario.ts'],
    setupFiles: ['test/support/leak-guard-setup.ts'],
    globalSetup: ['test/reliability/support/global-setup.ts'],
    // As in vitest.config.ts: the AWS SDK's notice about Node < 22, off in the test processes.
    env: { RELIABILITY_RESULTS: resultsFile, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    pool: 'forks',
    // Scenarios share two cores with the servers they start: one file at a time keeps timings honest.
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    restoreMocks: true,
  },
});
