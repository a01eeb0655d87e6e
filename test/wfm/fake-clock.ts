// A RetryClock for tests: time moves only when code sleeps, sleeps return at once (recorded), and
// randomness is a fixed draw, so backoff and budgets are tested without waiting.

import { AbortedError } from '../../src/errors.js';
import type { RetryClock } from '../../src/wfm/retry.js';

export class FakeClock implements RetryClock {
  nowMs: number;
  readonly sleeps: number[] = [];
  draw: number;

  constructor(startMs = Date.parse('2024-05-01T12:00:00Z'), draw = 0.5) {
    this.nowMs = startMs;
    this.draw = draw;
  }

  now(): number {
    return this.nowMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted)
      return Promise.reject(new AbortedError('aborted while waiting to retry a WFM request'));
    this.sleeps.push(ms);
    this.nowMs += ms;
    return Promise.resolve();
  }

  random(): number {
    return this.draw;
  }
}
