import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/no-console.ts', 'test/support/leak-guard-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start their own servers; two cores run two files at once.
    maxWorkers: 2,
    restoreMocks: true,
  },
});
