// docs/reliability.md's latest-run section is written by the suite's teardown: the page must keep
// the markers and a table of the shape the suite writes, and the writer must touch nothing else.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  filesNotRun,
  RELIABILITY_DOC,
  replaceBetweenMarkers,
  scenarioFiles,
  TABLE_END,
  TABLE_START,
} from './support/reliability-doc.js';
import { formatTable, type ScenarioRow } from './support/results.js';

const row = (file: string): ScenarioRow => ({
  group: 'upstream',
  scenario: 'no fault (baseline)',
  outcome: 'published',
  expected: 10,
  exported: 10,
  lost: 0,
  duplicates: 0,
  ms: 1200,
  passed: true,
  file,
});

describe('docs/reliability.md', () => {
  const page = readFileSync(RELIABILITY_DOC, 'utf8');
  const section = page.slice(page.indexOf(TABLE_START) + TABLE_START.length, page.indexOf(TABLE_END));

  it('has the latest run between the markers: its date, commit and machine, then the table', () => {
    expect(page.indexOf(TABLE_START)).toBeGreaterThan(0);
    expect(page.indexOf(TABLE_END)).toBeGreaterThan(page.indexOf(TABLE_START));
    expect(section).toMatch(
      /^Latest run: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, commit [0-9a-f]{7,}.*\d+-core .*Node v\d+/m,
    );
    const header = formatTable([row('x.scenario.ts')])
      .split('\n')
      .slice(0, 2)
      .join('\n');
    expect(section).toContain(header);
  });
});

describe('the latest-run writer', () => {
  it('replaces only what lies between the markers', () => {
    const text = `# Title\n\nbefore\n${TABLE_START}\nold table\n${TABLE_END}\nafter\n`;
    expect(replaceBetweenMarkers(text, 'new table')).toBe(
      `# Title\n\nbefore\n${TABLE_START}\nnew table\n${TABLE_END}\nafter\n`,
    );
  });

  it('refuses a page without the markers', () => {
    expect(() => replaceBetweenMarkers('# Title\n', 'table')).toThrow(/reliability-table:start/);
  });

  it('counts a run as the whole suite only when every scenario file recorded a row', () => {
    const files = scenarioFiles();
    expect(files.length).toBeGreaterThan(5);
    expect(filesNotRun(files.map(row))).toEqual([]);
    expect(filesNotRun(files.slice(1).map(row))).toEqual([files[0]]);
  });
});
