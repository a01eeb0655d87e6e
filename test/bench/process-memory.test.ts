import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processMemory } from '../../bench/process-memory.js';

const vmRssMb = (): number =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

describe('processMemory', () => {
  it("splits a process's resident memory into parts that add up to its RSS", () => {
    const before = vmRssMb();
    const m = processMemory(process.pid);
    const after = vmRssMb();
    const sum = m.arenasMb + m.mainArenaMb + m.otherAnonymousMb + m.filesMb;
    expect(sum).toBeGreaterThan(Math.min(before, after) * 0.95);
    expect(sum).toBeLessThan(Math.max(before, after) * 1.05);
    // node's binary is a mapped file; V8's heap is anonymous memory.
    expect(m.filesMb).toBeGreaterThan(1);
    expect(m.otherAnonymousMb).toBeGreaterThan(1);
    expect(m.arenas).toBeGreaterThanOrEqual(0);
  });
});
