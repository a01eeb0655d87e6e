import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { formatJobDetails } from '../../src/cli/job-text.js';
import { jobView } from '../../src/queue/job-view.js';

const CREATED = Date.UTC(2026, 10, 24, 2, 0, 0);
const FIRST_START = CREATED + 1000;
const SECOND_START = CREATED + 60_000;

/** A job as BullMQ stores it (the fields jobView reads), after one run that a stopping worker handed back. */
function handedBack(overrides: Partial<Job>): Job {
  return {
    id: 'export-2026-11-23_2026-11-23-csv-0123456789',
    name: 'export-period',
    data: { from: '2026-11-23', to: '2026-11-23', formats: ['csv'] },
    opts: { attempts: 5 },
    timestamp: CREATED,
    attemptsMade: 0,
    attemptsStarted: 1,
    processedOn: FIRST_START,
    progress: { phase: 'fetching', rows: 40000, exported: 39990, rejected: 10, attempt: 1 },
    failedReason: undefined,
    finishedOn: undefined,
    returnvalue: null,
    ...overrides,
  } as unknown as Job;
}

describe('jobView of a job handed back to the queue', () => {
  it('shows no start or progress while it waits: they were of the run that ended', () => {
    const view = jobView(handedBack({}), 'waiting');
    expect(view.started_at).toBeNull();
    expect(view.progress).toBeNull();
    expect(view.attempt_running).toBeNull();
    expect(formatJobDetails(view)).toContain('Attempts  0 of 5 used');
    expect(formatJobDetails(view)).not.toContain('40,000');
  });

  it('shows the running attempt, its start, and none of the old progress once a worker takes it again', () => {
    const view = jobView(handedBack({ attemptsStarted: 2, processedOn: SECOND_START }), 'active');
    expect(view.attempt_running).toBe(1);
    expect(view.started_at).toBe(new Date(SECOND_START).toISOString());
    expect(view.progress).toBeNull();
    const text = formatJobDetails(view);
    expect(text).toContain(
      'Attempt   1 of 5, running (taken 2 times: earlier runs were handed back or stalled)',
    );
    expect(text).not.toContain('0 of 5');
  });

  it('shows the progress the running attempt wrote', () => {
    const view = jobView(
      handedBack({
        attemptsStarted: 2,
        processedOn: SECOND_START,
        progress: { phase: 'fetching', rows: 5000, exported: 5000, rejected: 0, attempt: 2 },
      }),
      'active',
    );
    expect(view.progress?.rows).toBe(5000);
    expect(formatJobDetails(view)).toContain('Progress  fetching 5,000 rows');
  });

  it('counts a failed attempt: the retry running after it is attempt 2', () => {
    const view = jobView(
      handedBack({ attemptsMade: 1, attemptsStarted: 2, processedOn: SECOND_START, progress: 0 }),
      'active',
    );
    expect(formatJobDetails(view)).toContain('Attempt   2 of 5, running\n');
  });
});
