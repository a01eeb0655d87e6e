// The V8 flag the product runs with is given on node's command line (V8 refuses it in
// NODE_OPTIONS): by the bin's first line and by the Docker image's ENTRYPOINT. Node reports an
// unknown flag and stops, so check that this Node's V8 knows it, and that the two places agree.
// The same two places set glibc's malloc tunable (a fixed mmap threshold); glibc ignores a
// tunable it does not know, silently, so check that this glibc's loader reports it as set.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url);
const FLAG = '--heap-growing-percent=100';
const TUNABLES = 'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072';
const LOADER = '/lib64/ld-linux-x86-64.so.2';

describe('node flags', () => {
  it("starts the bin with the heap-growth flag, which this Node's V8 knows", () => {
    const shebang = readFileSync(new URL('bin/shift-export.js', ROOT), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S ${TUNABLES} node ${FLAG}`);
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s*--heap-growing-percent\b/m);
    expect(
      execFileSync(process.execPath, [FLAG, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' }),
    ).toBe('ok');
  });

  it('gives the Docker image the same flag', () => {
    const dockerfile = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
    expect(dockerfile).toContain(`ENTRYPOINT ["node", "${FLAG}", "bin/shift-export.js"]`);
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
