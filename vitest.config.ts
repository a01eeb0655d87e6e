import { configDefaults, defineConfig } from 'vitest/config';
import { useTestsTempFolder } from './test/support/tests-temp-folder.js';

// Each test file gets a TMPDIR of its own in here (test/support/leak-guard.ts), checked and removed
// at its end.
useTestsTempFolder();

// Two projects, so that each script says what it runs: `unit` (*.test.ts: pure logic, no server,
// `npm run test:unit`) and `int` (*.int.test.ts, e2e/ among them: real Redis, sandbox, S3 server,
// the CLI as a child; `npm run test:int`). `npm test` runs both.
export default defineConfig({
  test: {
    setupFiles: ['test/support/no-console.ts', 'test/support/leak-guard-setup.ts'],
    // The AWS SDK's documented switch for its notice that SDK releases after January 2027 need
    // Node >= 22: on Node 20 every test file that builds an S3 client printed it. CLI children get
    // their env from cliEnv (test/support/cli.ts), without it: test/e2e/quiet-stderr.int.test.ts
    // checks that the product still logs the notice as a JSON line there.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start their own servers; two cores run two files at once.
    maxWorkers: 2,
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.int.test.ts', 'test/e2e/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['test/**/*.int.test.ts', 'packages/*/test/**/*.int.test.ts', 'test/e2e/**/*.test.ts'],
          // Only these need redis-server: without it, they stop at once with a one-line hint.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
