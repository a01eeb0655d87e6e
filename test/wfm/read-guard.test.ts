// The read deadline and the minimum rate of one request, on fake timers: what fires when, what it
// says, and that nothing is left behind once the read is over.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReadLimits } from '../../src/config/wfm-config.js';
import { BodyBytes } from '../../src/wfm/body-bytes.js';
import { ReadGuard } from '../../src/wfm/read-guard.js';
import { WfmTimeoutError } from '../../src/wfm/wfm-error.js';

const AT = { method: 'GET', path: '/v1/connector/rpc/wfm_timers', attempts: 2 };
const LIMITS: ReadLimits = { deadlineMs: 10_000, minBytesPerSec: 1000, rateWindowMs: 1000 };

function reason(guard: ReadGuard): WfmTimeoutError {
  expect(guard.signal.aborted).toBe(true);
  const error: unknown = guard.signal.reason;
  expect(error).toBeInstanceOf(WfmTimeoutError);
  return error as WfmTimeoutError;
}

/** The request's body bytes, as its ResponseBody would count them. */
let bytes = new BodyBytes();

beforeEach(() => {
  bytes = new BodyBytes();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('ReadGuard', () => {
  it('aborts the request at WFM_READ_DEADLINE_MS with a retryable WFM_TIMEOUT that names it', () => {
    const guard = new ReadGuard({ ...LIMITS, minBytesPerSec: 0 }, AT, bytes);
    bytes.addWire(5000);
    vi.advanceTimersByTime(9_999);
    expect(guard.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    const error = reason(guard);
    expect(error).toMatchObject({ code: 'WFM_TIMEOUT', retryable: true, attempts: 2 });
    expect(error.details).toMatchObject({ phase: 'deadline', wireBytes: 5000 });
    expect(error.message).toContain('WFM_READ_DEADLINE_MS=10000');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails a body slower than WFM_READ_MIN_BYTES_PER_SEC over a window of waiting', () => {
    const guard = new ReadGuard(LIMITS, AT, bytes);
    for (let i = 0; i < 4; i++) {
      guard.waiting();
      vi.advanceTimersByTime(200);
      bytes.addWire(100);
      guard.waited();
    }
    expect(guard.signal.aborted).toBe(false);
    guard.waiting();
    vi.advanceTimersByTime(200); // the window's 1000 ms of waiting brought 400 bytes: < 1000
    const error = reason(guard);
    expect(error.details).toMatchObject({ phase: 'rate' });
    expect(error.message).toContain('400 bytes in 1.0 s of waiting');
    expect(error.message).toContain('WFM_READ_MIN_BYTES_PER_SEC=1000');
    expect(error.message).toContain('WFM_READ_RATE_WINDOW_MS=1000');
  });

  it('does not count time spent outside waits (our side holding the read back)', () => {
    const guard = new ReadGuard(LIMITS, AT, bytes);
    guard.waiting();
    vi.advanceTimersByTime(500);
    bytes.addWire(600);
    guard.waited();
    vi.advanceTimersByTime(8000); // a slow destination: no bytes, but nobody was waiting for them
    guard.waiting();
    vi.advanceTimersByTime(400);
    bytes.addWire(600);
    guard.waited();
    expect(guard.signal.aborted).toBe(false);
    guard.dispose();
  });

  it('judges each window alone: a fast one does not pay for a slow one after it', () => {
    const guard = new ReadGuard(LIMITS, AT, bytes);
    guard.waiting();
    bytes.addWire(1_000_000);
    vi.advanceTimersByTime(1000);
    guard.waited();
    expect(guard.signal.aborted).toBe(false);
    guard.waiting();
    vi.advanceTimersByTime(1000);
    expect(reason(guard).message).toContain('0 bytes in 1.0 s of waiting');
  });

  it('disables the rate guard with WFM_READ_MIN_BYTES_PER_SEC=0', () => {
    const guard = new ReadGuard({ ...LIMITS, minBytesPerSec: 0 }, AT, bytes);
    guard.waiting();
    vi.advanceTimersByTime(9000);
    guard.waited();
    expect(guard.signal.aborted).toBe(false);
    guard.dispose();
  });

  it('follows the caller’s signal, with its reason', () => {
    const caller = new AbortController();
    const guard = new ReadGuard(LIMITS, AT, bytes, caller.signal);
    caller.abort(new Error('shutdown'));
    expect(guard.signal.aborted).toBe(true);
    expect((guard.signal.reason as Error).message).toBe('shutdown');
    guard.dispose();
  });

  it('leaves no timer and no listener once disposed, and never fires after', () => {
    const caller = new AbortController();
    const guard = new ReadGuard(LIMITS, AT, bytes, caller.signal);
    guard.waiting();
    expect(vi.getTimerCount()).toBe(2);
    guard.dispose();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    caller.abort();
    expect(guard.signal.aborted).toBe(false);
  });
});
