import { describe, expect, it } from 'vitest';
import { throttle, type ThrottleClock } from '../../src/queue/progress-throttle.js';

function fakeClock() {
  let now = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  let next = 1;
  const clock: ThrottleClock = {
    now: () => now,
    setTimeout: (callback, ms) => {
      timers.set(next, { at: now + ms, callback });
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  const advance = (ms: number): void => {
    now += ms;
    for (const [id, timer] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at <= now) {
        timers.delete(id);
        timer.callback();
      }
    }
  };
  return { clock, advance, pending: () => timers.size };
}

describe('throttle', () => {
  it('sends the first value at once and coalesces the rest of the second into one trailing send', () => {
    const { clock, advance } = fakeClock();
    const sent: number[] = [];
    const t = throttle<number>((v) => sent.push(v), 1000, clock);
    t.push(1);
    t.push(2);
    advance(300);
    t.push(3);
    expect(sent).toEqual([1]);
    advance(700);
    expect(sent).toEqual([1, 3]);
  });

  it('never sends twice within the interval', () => {
    const { clock, advance } = fakeClock();
    const times: number[] = [];
    const t = throttle<number>(() => times.push(clock.now()), 1000, clock);
    for (let i = 0; i < 100; i++) {
      t.push(i);
      advance(37);
    }
    advance(2000);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(1000);
    expect(times.length).toBeGreaterThanOrEqual(3);
  });

  it('drops a pending value on cancel', () => {
    const { clock, advance, pending } = fakeClock();
    const sent: number[] = [];
    const t = throttle<number>((v) => sent.push(v), 1000, clock);
    t.push(1);
    t.push(2);
    t.cancel();
    expect(pending()).toBe(0);
    advance(5000);
    expect(sent).toEqual([1]);
  });
});
