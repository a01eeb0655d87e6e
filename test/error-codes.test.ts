// Like fastify's docs test: every error code raised in the code base is documented in the table of
// docs/errors.md, and the table documents nothing that no longer exists.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WFM_ERROR_CODES } from '../src/wfm/wfm-error.js';

const root = new URL('..', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function codesInSource(): Set<string> {
  const codes = new Set<string>(Object.keys(WFM_ERROR_CODES));
  for (const file of [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'jobs'))]) {
    for (const match of readFileSync(file, 'utf8').matchAll(/super\(\s*'([A-Z][A-Z0-9_]+)'/g))
      codes.add(match[1]!);
  }
  return codes;
}

function codesInDocs(): Set<string> {
  const page = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
  return new Set([...page.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
}

describe('error codes', () => {
  it('documents every code the code base raises', () => {
    const documented = codesInDocs();
    const missing = [...codesInSource()].filter((c) => !documented.has(c));
    expect(missing).toEqual([]);
  });

  it('documents no code that the code base no longer raises', () => {
    const raised = codesInSource();
    expect([...codesInDocs()].filter((c) => !raised.has(c))).toEqual([]);
  });
});
