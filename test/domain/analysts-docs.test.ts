// docs/analysts.md describes the files for the people who open them: its tables of columns,
// statistics and quality flags must list exactly what the code declares, in the same order.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import { QUALITY_FLAGS } from '../../src/domain/shift-record.js';
import { STATISTIC_COLUMNS } from '../../src/render/manifest.js';

const page = readFileSync(new URL('../../docs/analysts.md', import.meta.url), 'utf8');

/** The first cell (a `name`) of every row of the first table under `heading`. */
function firstCells(heading: string): string[] {
  const start = page.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/analysts.md has no heading "${heading}"`);
  const rest = page.slice(start + heading.length + 2);
  const table = rest.slice(rest.indexOf('\n|'), rest.search(/\n\n(?!\|)(?=[^|])/));
  return [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] ?? '');
}

describe('docs/analysts.md', () => {
  it('lists every column of shifts.csv, in file order', () => {
    expect(firstCells('## The columns of shifts.csv')).toEqual(SHIFT_COLUMNS.map((c) => c.name));
  });

  it('lists every statistic column of the summaries, in file order', () => {
    const table = page.slice(page.indexOf('The statistic columns, the same in every summary'));
    const names = [
      ...table.slice(0, table.indexOf('\n\n', table.indexOf('\n|'))).matchAll(/^\| `([^`]+)` \|/gm),
    ].map((m) => m[1]);
    expect(names).toEqual(STATISTIC_COLUMNS.map((c) => c.name));
  });

  it('lists every quality flag, in the order a row names them', () => {
    expect(firstCells('### Quality flags')).toEqual(Object.keys(QUALITY_FLAGS));
  });
});
