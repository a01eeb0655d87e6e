// What bench/memory-profile.ts preloads (`node --require`) into `shift-export run`, in the main
// thread and in every worker thread (a CommonJS preload runs in workers too; `--import` does not):
// it samples process.memoryUsage() every 200 ms and keeps each thread's peaks of its V8 heap,
// external and ArrayBuffer memory, and the process's RSS, writing them to
// MEMORY_SAMPLE_DIR/<threadId>.json every second and at exit. The main thread also writes the
// process's high-water mark (VmHWM), which no sample can miss. Kept as text: the bench writes it
// to a temp file, so the build and the linter see TypeScript only.

export const MEMORY_SAMPLER_SOURCE = `'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { threadId } = require('node:worker_threads');

const dir = process.env.MEMORY_SAMPLE_DIR;
if (dir) {
  const started = Date.now();
  const peak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  let atPeakRss = undefined;
  let samples = 0;
  // Every 2 s: seconds in, RSS, heap used, external (MB), to see which phase of the export holds it.
  const timeline = [];
  let lastMark = -2000;
  const sample = () => {
    const usage = process.memoryUsage();
    samples++;
    const now = Date.now() - started;
    if (now - lastMark >= 2000) {
      lastMark = now;
      timeline.push([Math.round(now / 1000), usage.rss >> 20, usage.heapUsed >> 20, usage.external >> 20]);
    }
    for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], usage[key]);
    if (usage.rss >= peak.rss) atPeakRss = { ...usage, atMs: Date.now() - started };
  };
  const hwm = () => {
    const match = /^VmHWM:\\s+(\\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const write = () => {
    const facts = { threadId, samples, peak, atPeakRss, timeline, ...(threadId === 0 ? { vmHwm: hwm() } : {}) };
    try {
      writeFileSync(join(dir, \`\${threadId}.json\`), JSON.stringify(facts));
    } catch {
      // The folder is gone: the bench has finished reading.
    }
  };
  setInterval(sample, 200).unref();
  setInterval(write, 1000).unref();
  process.on('exit', () => {
    sample();
    write();
  });
}
`;

/** What the sampler writes for one thread. */
export interface ThreadMemory {
  readonly threadId: number;
  readonly samples: number;
  readonly peak: Readonly<Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>>;
  readonly atPeakRss?: Readonly<Record<string, number>>;
  readonly vmHwm?: number;
  /** [seconds in, RSS MB, heap used MB, external MB] every 2 s. */
  readonly timeline?: readonly (readonly [number, number, number, number])[];
}
