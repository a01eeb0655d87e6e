// The flag is set at run time, where V8 reports an unknown flag only on stderr and carries on: so
// check that this Node's V8 still knows it (CI runs this file on Node 20 and on Node 24). That the
// CLI sets it without a complaint is covered by the e2e run test, which wants an empty stderr.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT } from '../src/heap-growth.js';

describe('limitHeapGrowth', () => {
  it("sets a flag this Node's V8 knows, to a growth factor between 1 and 4", () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s*--heap-growing-percent\b/m);
    expect(HEAP_GROWING_PERCENT).toBeGreaterThan(0);
    expect(HEAP_GROWING_PERCENT).toBeLessThan(300);
  });
});
