// The V8 flags the product runs with are given on node's command line (V8 refuses them in
// NODE_OPTIONS): by the bin's first line and by the Docker image's ENTRYPOINT. Node reports an
// unknown flag and stops, so check that this Node knows them, and that the two places agree.
// The same two places set glibc's malloc tunable (a fixed mmap threshold); glibc ignores a
// tunable it does not know, silently, so check that this glibc's loader reports it as set.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url);
const FLAGS = '--heap-growing-percent=100 --expose-gc';
const TUNABLES = 'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072';
const LOADER = '/lib64/ld-linux-x86-64.so.2';

describe('node flags', () => {
  it('starts the bin with the heap-growth flag and gc() exposed, which this Node knows', () => {
    const shebang = readFileSync(new URL('bin/shift-export.js', ROOT), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S ${TUNABLES} node ${FLAGS}`);
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s*--heap-growing-percent\b/m);
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
