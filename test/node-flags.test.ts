// The V8 flag the product runs with is given on node's command line (V8 refuses it in
// NODE_OPTIONS): by the bin's first line and by the Docker image's ENTRYPOINT. Node reports an
// unknown flag and stops, so check that this Node's V8 knows it, and that the two places agree.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url);
const FLAG = '--heap-growing-percent=100';

describe('node flags', () => {
  it("starts the bin with the heap-growth flag, which this Node's V8 knows", () => {
    const shebang = readFileSync(new URL('bin/shift-export.js', ROOT), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${FLAG}`);
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s*--heap-growing-percent\b/m);
    expect(
      execFileSync(process.execPath, [FLAG, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' }),
    ).toBe('ok');
  });

  it('gives the Docker image the same flag', () => {
    const dockerfile = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
    expect(dockerfile).toContain(`ENTRYPOINT ["node", "${FLAG}", "bin/shift-export.js"]`);
  });
});
