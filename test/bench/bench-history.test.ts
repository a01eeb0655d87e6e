// The bench adds a row to the history table of docs/performance.md: the row it writes must have the
// table's columns, and name its date, commit and machine.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { historyRow, RECORDED_ROWS_KEPT, withRecordedRow, type BenchRecord } from '../../bench/results.js';

const page = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8');
const latest = JSON.parse(
  readFileSync(new URL('../../bench/results/latest-lines.json', import.meta.url), 'utf8'),
) as Omit<BenchRecord, 'startedAt'> & { startedAt: string };

const cells = (line: string): number => line.split(' | ').length;

describe('the bench history in docs/performance.md', () => {
  const start = page.indexOf('<!-- history:start -->');
  const header = page.slice(page.lastIndexOf('\n| date (UTC)', start) + 1).split('\n')[0] ?? '';

  it('has the markers the bench writes between, under a header of date, commit and machine', () => {
    expect(start).toBeGreaterThan(0);
    expect(page.indexOf('<!-- history:end -->')).toBeGreaterThan(start);
    expect(header).toMatch(/^\| date \(UTC\) \| commit \| machine \| node \|/);
  });

  it('gets rows of the table’s shape from a recorded run', () => {
    const row = historyRow({ ...latest, startedAt: new Date(latest.startedAt) }, 'f9669e6');
    // The run's start in UTC to the minute, the commit given, the machine's cores, model and memory.
    const when = latest.startedAt.slice(0, 16).replace('T', ' ');
    expect(row.startsWith(`| ${when} | f9669e6 | `)).toBe(true);
    expect(row).toMatch(/^\| [^|]+ \| f9669e6 \| \d+-core [^|]+, \d+ GB \| v\d+\.\d+\.\d+ \|/);
    expect(cells(row)).toBe(cells(header));
  });

  it('says the every-row-its-own-user line apart, and leaves the peak empty without an export line', () => {
    const line = latest.lines?.find((l) => l.line.kind === 'csv');
    expect(line).toBeDefined();
    const users = { ...(line as NonNullable<typeof line>), line: { ...line!.line, userPerRow: true } };
    const row = historyRow({ ...latest, lines: [users], startedAt: new Date(latest.startedAt) }, 'f9669e6');
    expect(row).toContain(`every row its own user ${Math.round(users.rowsPerSecond / 1000)}k/s`);
    expect(row).not.toMatch(/Infinity|NaN/);
    // Neither in the csv column nor in the peak column.
    expect(row.endsWith('|  |  |  |  |  |  |  |')).toBe(true);
    expect(cells(row)).toBe(cells(header));
  });

  it('has rows of the header’s shape only', () => {
    const rows = page
      .slice(start, page.indexOf('<!-- history:end -->'))
      .split('\n')
      .filter((l) => l.startsWith('| '));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(RECORDED_ROWS_KEPT);
    for (const row of rows) expect(cells(row), row).toBe(cells(header));
  });

  it('keeps the latest rows on the page and moves the older ones, oldest first, to the notes', () => {
    const page = 'intro\n| date |\n<!-- history:start -->\n| a |\n| b |\n<!-- history:end -->\nafter\n';
    const notes = '# notes\n\n| date |\n| --- |\n| 0 |\n';
    const once = withRecordedRow(page, notes, '| c |', 3);
    expect(once).toEqual({ page: page.replace('| b |\n', '| b |\n| c |\n'), notes });
    const twice = withRecordedRow(once?.page ?? '', once?.notes ?? '', '| d |', 3);
    expect(twice?.page).toBe(
      'intro\n| date |\n<!-- history:start -->\n| b |\n| c |\n| d |\n<!-- history:end -->\nafter\n',
    );
    expect(twice?.notes).toBe(`${notes}| a |\n`);
    expect(withRecordedRow('no markers', notes, '| e |')).toBeUndefined();
  });
});
