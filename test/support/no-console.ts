// Like zod's test setup: a test that writes to the console fails, so stray debug output and
// un-asserted warnings do not pile up. Capture output through a logger destination instead.

import { afterEach, beforeEach, vi } from 'vitest';

const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
let calls: string[] = [];

beforeEach(() => {
  calls = [];
  for (const m of methods) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      calls.push(`console.${m}: ${args.map(String).join(' ')}`);
    });
  }
});

afterEach(() => {
  if (calls.length > 0) throw new Error(`the test wrote to the console:\n${calls.join('\n')}`);
});
