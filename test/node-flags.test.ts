// The V8 flags the product runs with (the old generation's growth, gc() exposed, no Maglev
// compiler) are given on node's command line (V8 refuses them in NODE_OPTIONS): by the bin's first
// line and by the Docker image's ENTRYPOINT. Node reports an unknown flag and stops, so check that
// this Node knows them, and that the two places agree. The same two places set glibc's malloc
// tunable (a fixed mmap threshold, by its short name MALLOC_MMAP_THRESHOLD_); glibc ignores a
// variable it does not know, silently, so check that this glibc's loader reports the tunable as
// set. The young generation's size is a V8 flag that NODE_OPTIONS may carry: the bin's first line
// gives it, the image sets it in NODE_OPTIONS, where an operator can trade it back.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { THREAD_RESOURCE_LIMITS } from '../src/export/answering-thread.js';

const ROOT = new URL('../', import.meta.url);
const FLAGS = '--heap-growing-percent=100 --expose-gc --no-maglev';
const YOUNG = '--max-semi-space-size=2';
const TUNABLES = 'MALLOC_MMAP_THRESHOLD_=131072';
const LOADER = '/lib64/ld-linux-x86-64.so.2';

describe('node flags', () => {
  it('starts the bin with the heap-growth flag and gc() exposed, which this Node knows', () => {
    const shebang = readFileSync(new URL('bin/shift-export.js', ROOT), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S ${TUNABLES} node ${FLAGS} ${YOUNG}`);
    // Linux before 5.1 reads 127 bytes of a first line and cuts the rest (255 since).
    expect(Buffer.byteLength(shebang ?? '')).toBeLessThanOrEqual(127);
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s*--heap-growing-percent\b/m);
    // --no-maglev is the negation of a flag this V8 must know (Node 20's has it off already).
    expect(options).toMatch(/^\s*--maglev\b/m);
    // The worker collects its garbage when idle (jobs/idle-collection.ts) through gc().
    expect(
      execFileSync(process.execPath, [...FLAGS.split(' '), '-e', 'process.stdout.write(typeof gc)'], {
        encoding: 'utf8',
      }),
    ).toBe('function');
  });

  it('gives the Docker image the same flags', () => {
    const dockerfile = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
    const words = FLAGS.split(' ')
      .map((flag) => `"${flag}", `)
      .join('');
    expect(dockerfile).toContain(`ENTRYPOINT ["node", ${words}"bin/shift-export.js"]`);
    expect(dockerfile).toContain(`ENV ${TUNABLES}\n`);
    expect(dockerfile).toContain(`ENV NODE_OPTIONS=${YOUNG}\n`);
  });

  it("gives the export's own thread the young generation the export threads are started with", () => {
    // Objects that survive a while make V8 grow the young generation to its largest. The size it
    // keeps is the median of its samples: a loaded machine shows a rare spike (a page taken
    // mid-scavenge), and the largest sample would measure that.
    const grow = `const v8 = require('node:v8');
      const ring = new Array(100000);
      const sizes = [];
      for (let i = 0; i < 4e6; i++) {
        ring[i % ring.length] = { i, list: [i] };
        if (i % 50000 === 0) {
          const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
          sizes.push(young.space_size);
        }
      }
      sizes.sort((a, b) => a - b);
      process.stdout.write(String(sizes[sizes.length >> 1]));`;
    const kept = (args: string[], env: NodeJS.ProcessEnv = {}): number =>
      Number(
        execFileSync(process.execPath, [...args, '-e', grow], {
          encoding: 'utf8',
          env: { ...process.env, NODE_OPTIONS: '', ...env },
        }),
      );
    const inThread = (args: string[]): number =>
      Number(
        execFileSync(
          process.execPath,
          [
            ...args,
            '-e',
            `const { Worker } = require('node:worker_threads');
             const thread = new Worker(${JSON.stringify(grow)}, { eval: true, stdout: true,
               resourceLimits: ${JSON.stringify(THREAD_RESOURCE_LIMITS)} });
             let out = '';
             thread.stdout.on('data', (chunk) => (out += chunk));
             thread.on('exit', () => process.stdout.write(out));`,
          ],
          { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
        ),
      );
    // The young generation V8 keeps: 8 MiB for a limit of 8 on Node 20 and 24 (4 for 4), and without the
    // flag 32 MiB (Node 20) and 128 MiB (Node 24) for the same script (2026-11-29). Single
    // samples of 9.5 and 13 MiB were seen on a loaded Node 24, so the bound leaves half again.
    const bound = THREAD_RESOURCE_LIMITS.maxYoungGenerationSizeMb * 1.5 * 2 ** 20;
    expect(inThread([])).toBeLessThanOrEqual(bound);
    // Without the flag the export's own thread grows a larger young generation than its threads.
    expect(kept([])).toBeGreaterThan(bound);
    expect(kept([YOUNG])).toBeLessThanOrEqual(bound);
    expect(kept([], { NODE_OPTIONS: YOUNG })).toBeLessThanOrEqual(bound);
    // With the flag, the threads keep theirs.
    expect(inThread([YOUNG])).toBeLessThanOrEqual(bound);
  });

  it.runIf(existsSync(LOADER))("sets a malloc tunable this glibc's loader knows", () => {
    const name = TUNABLES.slice(0, TUNABLES.indexOf('='));
    const listed = execFileSync(LOADER, ['--list-tunables'], {
      encoding: 'utf8',
      env: { ...process.env, [name]: TUNABLES.slice(name.length + 1) },
    });
    // 131072 = 0x20000; without the variable the loader lists 0x0 (the threshold glibc adjusts).
    expect(listed).toMatch(/^glibc\.malloc\.mmap_threshold: 0x20000 /m);
  });
});
