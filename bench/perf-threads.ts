// `node dist/bench/perf-threads.js PERF_SCRIPT_OUTPUT [--top N]`: where an export's CPU goes,
// thread by thread, from a `perf record` of a whole run: the export threads, the export's own
// thread, V8's helper threads (the collector's marking and sweeping, the optimising compiler),
// libuv's pool (the workbook's deflate) and the sandbox. `node --cpu-prof` sees only JavaScript
// threads and samples wall time; perf's cpu-clock counts CPU on every thread, the kernel's page
// faults included. Record and print (docs/performance.md, "How to measure"):
//
//   perf record -F 499 -g -o perf.data -- node dist/bench/memory-profile.js --rows 300000 --formats csv,xlsx
//   perf script -i perf.data -F pid,tid,ip,sym > perf.txt
//   node dist/bench/perf-threads.js perf.txt
//
// (with `--perf-basic-prof` added to the bin's first line for the run, JavaScript functions have
// names). A thread is printed with its CPU seconds, its top symbols by self time, and what most
// often called the kernel's page-fault and copy routines, two costs a JavaScript profile does not
// show.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '10' }, hz: { type: 'string', default: '499' } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) {
  console.error('usage: node dist/bench/perf-threads.js PERF_SCRIPT_OUTPUT [--top N] [--hz 499]');
  process.exit(2);
}
const top = Number(values.top);
const secondsPerSample = 1 / Number(values.hz);

/** Frames whose callers are worth naming: the kernel's page faults and libc's copies. */
const TRACED = [/pvm_irq_enable|exc_page_fault|clear_page/, /memmove|memcpy/];

interface ThreadSamples {
  samples: number;
  bySymbol: Map<string, number>;
  tracedCallers: Map<string, number>;
}

const threads = new Map<string, ThreadSamples>();
const count = (map: Map<string, number>, key: string): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};

// perf script with call chains: a header line "pid/tid" per sample, then its frames ("ip symbol"),
// then a blank line.
const lines = readFileSync(file, 'utf8').split('\n');
for (let i = 0; i < lines.length; i++) {
  const header = /^\s*(\d+)\/(\d+)\b/.exec(lines[i] ?? '');
  if (header === null) continue;
  const frames: string[] = [];
  for (i++; i < lines.length && (lines[i] ?? '').trim() !== ''; i++)
    frames.push(
      (lines[i] ?? '')
        .trim()
        .replace(/^[0-9a-f]+\s+/, '')
        .replace(/ \(.*\)$/, ''),
    );
  const key = `${header[1] ?? ''}/${header[2] ?? ''}`;
  let thread = threads.get(key);
  if (thread === undefined) {
    thread = { samples: 0, bySymbol: new Map(), tracedCallers: new Map() };
    threads.set(key, thread);
  }
  thread.samples++;
  const self = frames[0] ?? '(unknown)';
  count(thread.bySymbol, self.slice(0, 100));
  if (TRACED.some((pattern) => pattern.test(self))) {
    // The first caller outside the kernel and libc: what touched fresh pages or copied.
    const caller = frames.find((frame) => !/^(__|_raw|asm_|exc_|pvm|do_|handle_|clear_page)/.test(frame));
    count(thread.tracedCallers, `${self.slice(0, 40)} < ${(caller ?? '?').slice(0, 90)}`);
  }
}

const all = [...threads.values()].reduce((sum, thread) => sum + thread.samples, 0);
console.log(`${(all * secondsPerSample).toFixed(1)} CPU-s in ${threads.size} threads`);
for (const [key, thread] of [...threads].sort((a, b) => b[1].samples - a[1].samples)) {
  if (thread.samples < all / 100) continue;
  console.log(`\n${key}: ${(thread.samples * secondsPerSample).toFixed(2)} CPU-s`);
  const ranked = (map: Map<string, number>): [string, number][] =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [symbol, n] of ranked(thread.bySymbol))
    console.log(`  ${((100 * n) / thread.samples).toFixed(1).padStart(5)}%  ${symbol}`);
  const traced = ranked(thread.tracedCallers).filter(([, n]) => n >= thread.samples / 100);
  if (traced.length > 0) console.log('  faults and copies, by caller:');
  for (const [caller, n] of traced)
    console.log(`  ${((100 * n) / thread.samples).toFixed(1).padStart(5)}%  ${caller}`);
}
