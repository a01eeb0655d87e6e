// Which owner markers name a writer that is certainly gone: the rule the sweep of dead `.partial`
// folders applies (the folder-level behaviour is in local-folder-destination.test.ts).

import { describe, expect, it } from 'vitest';
import { isWriterGone, SAME_START_TOLERANCE_MS } from '../../src/destinations/dead-partials.js';

const self = { host: 'here', pid: 4242, startedAt: 1_700_000_000_000 };
const marker = (writer: Record<string, unknown>) => ({ written_by: 'shift-export', ...writer });

describe('isWriterGone', () => {
  it('keeps a marker of this process, whichever thread computed its start (a millisecond either way)', () => {
    for (const delta of [-1, 0, 1])
      expect(
        isWriterGone(marker({ host: 'here', pid: 4242, process_started_at: self.startedAt + delta }), self),
      ).toBe(false);
  });

  it('calls gone an earlier process that had our pid', () => {
    const earlier = self.startedAt - SAME_START_TOLERANCE_MS - 1;
    expect(isWriterGone(marker({ host: 'here', pid: 4242, process_started_at: earlier }), self)).toBe(true);
  });

  it('never calls gone a writer of another host, or a marker without a usable pid', () => {
    expect(isWriterGone(marker({ host: 'there', pid: 4242, process_started_at: 1 }), self)).toBe(false);
    expect(isWriterGone(marker({ host: 'here', pid: 'x', process_started_at: 1 }), self)).toBe(false);
    expect(isWriterGone(marker({ host: 'here', pid: -1, process_started_at: 1 }), self)).toBe(false);
  });

  it('keeps the marker of a live process (the test runner that started us)', () => {
    expect(isWriterGone(marker({ host: 'here', pid: process.ppid, process_started_at: 1 }), self)).toBe(
      false,
    );
  });
});
