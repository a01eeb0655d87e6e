import { describe, expect, it } from 'vitest';
import { RunningJobs } from '../../jobs/running-jobs.js';

describe('RunningJobs', () => {
  it('is idle at once with no job, and when the last of several jobs leaves', async () => {
    const jobs = new RunningJobs();
    await jobs.whenIdle();
    jobs.enter();
    jobs.enter();
    let idle = false;
    const waiting = jobs.whenIdle().then(() => (idle = true));
    expect(jobs.leave()).toBe(false);
    await Promise.resolve();
    expect(idle).toBe(false);
    expect(jobs.leave()).toBe(true);
    await waiting;
    expect(jobs.size).toBe(0);
  });
});
