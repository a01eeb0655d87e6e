// docs/analysts.md says how large row-hashes.bin is; the format's constants say how large it is written.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTRY_BYTES, ROW_HASHES_MAGIC } from '../../src/changes/row-hashes-format.js';

const page = readFileSync(new URL('../../docs/analysts.md', import.meta.url), 'utf8');

describe('row-hashes.bin in docs/analysts.md', () => {
  it('gives its size as header + entry · rows, with the sizes the format writes', () => {
    const claims = [...page.matchAll(/`row-hashes\.bin` \|? ?\(?(\d+) \+ (\d+)·rows bytes/g)];
    expect(claims.length).toBe(2);
    for (const [, header, entry] of claims) {
      expect(Number(header)).toBe(ROW_HASHES_MAGIC.length);
      expect(Number(entry)).toBe(ENTRY_BYTES);
    }
    expect(page).not.toMatch(/`row-hashes\.bin`[^\n]{0,8}16 bytes per (exported )?row/);
  });
});
