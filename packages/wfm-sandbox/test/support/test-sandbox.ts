// Starts a sandbox for a test: loopback, a free port, small deterministic data (fixed seed and end
// date, so expectations never depend on today's date). Close it in afterAll.

import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/index.js';

export { SANDBOX_ADMIN_TOKEN, SANDBOX_NOROLE_TOKEN, SANDBOX_READER_TOKEN } from '../../src/index.js';

export const TEST_SANDBOX_END_DATE = '2024-03-31';
export const TEST_SANDBOX_SEED = 7;
export const TEST_SANDBOX_ROWS = 2000;

export function startTestSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({
    host: '127.0.0.1',
    port: 0,
    rows: TEST_SANDBOX_ROWS,
    seed: TEST_SANDBOX_SEED,
    endDate: TEST_SANDBOX_END_DATE,
    ...options,
  });
}
