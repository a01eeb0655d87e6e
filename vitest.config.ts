import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
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
  },
});
