import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeIndex } from '../../src/cli/backfill-command.js';
import { countText } from '../../src/cli/count-text.js';
import { progressText } from '../../src/cli/job-text.js';
import { createProgressLine } from '../../src/cli/progress-line.js';
import { sandboxReadyLine } from 'wfm-sandbox/command-line';

describe('counts printed by the commands', () => {
  it('have thousands separators', () => {
    expect(countText(1234567)).toBe('1,234,567');
    expect(countText(999)).toBe('999');
  });

  it('look the same in every command', () => {
    expect(progressText({ phase: 'fetching', rows: 12345, rejected: 1234 })).toBe(
      'fetching 12,345 rows 1,234 rejected',
    );
    // The sandbox package formats its own counts: the same way.
    expect(
      sandboxReadyLine({
        url: 'http://127.0.0.1:8080',
        dataset: { rows: 1000000, firstDate: '2026-11-01', lastDate: '2026-11-28' },
        adminToken: undefined,
      }),
    ).toBe('sandbox listening on http://127.0.0.1:8080 (1,000,000 shifts, 2026-11-01..2026-11-28)');
    expect(
      describeIndex({
        index_location: '/x/index.json',
        days: [],
        totals: { exported: 1234567, rejected: 1234 },
      }),
    ).toBe(
      'Backfill of 0 days complete; index at /x/index.json\n  shifts exported 1,234,567, rejected 1,234',
    );

    let drawn = '';
    const terminal = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          drawn += chunk.toString('utf8');
          callback();
        },
      }),
      { isTTY: true },
    );
    let now = 0;
    const line = createProgressLine(terminal, () => now);
    now = 1000;
    line.update({ phase: 'publishing', rows: 20000, exported: 18500, rejected: 1500 });
    expect(drawn).toContain('20,000 rows  20,000 rows/s  rejected 1,500');
  });
});
