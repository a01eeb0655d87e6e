import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../src/config/wfm-config.js';
import { AbortedError } from '../../src/errors.js';
import { abortableSleep, RetryBudget, withRetry, type RetryEvent } from '../../src/wfm/retry.js';
import {
  WfmAuthError,
  WfmHttpStatusError,
  WfmNetworkError,
  WfmTimeoutError,
  type WfmError,
} from '../../src/wfm/wfm-error.js';
import { FakeClock } from './fake-clock.js';

const policy: RetryPolicy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalMs: 10_000 };
const where = (attempts: number) => ({ method: 'GET', path: '/v1/x', attempts });

/** An attempt function that throws the given errors in turn, then returns 'ok'. */
function failing(errors: ReadonlyArray<(attempt: number) => WfmError>): {
  run: (attempt: number) => Promise<string>;
  calls: number[];
} {
  const calls: number[] = [];
  return {
    calls,
    run: (attempt) => {
      calls.push(attempt);
      const make = errors[calls.length - 1];
      return make === undefined ? Promise.resolve('ok') : Promise.reject(make(attempt));
    },
  };
}

const status = (s: number, retryAfter?: string) => (attempt: number) =>
  new WfmHttpStatusError({
    ...where(attempt),
    status: s,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
const reset = (attempt: number) => new WfmNetworkError('ECONNRESET', where(attempt));

describe('withRetry', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries a %i and returns the later success', async (code) => {
    const clock = new FakeClock();
    const attempt = failing([status(code), status(code)]);
    await expect(withRetry({ policy, method: 'GET', clock }, attempt.run)).resolves.toBe('ok');
    expect(attempt.calls).toEqual([1, 2, 3]);
  });

  it('retries network errors and timeouts', async () => {
    const clock = new FakeClock();
    const attempt = failing([reset, (n) => new WfmTimeoutError('body', where(n))]);
    await expect(withRetry({ policy, method: 'GET', clock }, attempt.run)).resolves.toBe('ok');
    expect(attempt.calls).toHaveLength(3);
  });

  it.each(['GET', 'PUT', 'DELETE'])('retries %s', async (method) => {
    const attempt = failing([status(503)]);
    await expect(withRetry({ policy, method, clock: new FakeClock() }, attempt.run)).resolves.toBe('ok');
  });

  it('never retries a POST', async () => {
    const clock = new FakeClock();
    const attempt = failing([status(503)]);
    await expect(withRetry({ policy, method: 'POST', clock }, attempt.run)).rejects.toMatchObject({
      code: 'WFM_HTTP_STATUS',
      status: 503,
    });
    expect(attempt.calls).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it.each([400, 404, 409])('does not retry a %i', async (code) => {
    const attempt = failing([status(code)]);
    await expect(
      withRetry({ policy, method: 'GET', clock: new FakeClock() }, attempt.run),
    ).rejects.toMatchObject({ retryable: false });
    expect(attempt.calls).toEqual([1]);
  });

  it('does not retry 401 or 403', async () => {
    const attempt = failing([(n) => new WfmAuthError({ ...where(n), status: 401 })]);
    await expect(
      withRetry({ policy, method: 'GET', clock: new FakeClock() }, attempt.run),
    ).rejects.toMatchObject({ code: 'WFM_AUTH' });
    expect(attempt.calls).toEqual([1]);
  });

  it('does not retry errors that are not WFM errors', async () => {
    let calls = 0;
    const run = () => {
      calls++;
      return Promise.reject(new TypeError('a bug'));
    };
    await expect(withRetry({ policy, method: 'GET', clock: new FakeClock() }, run)).rejects.toThrow(
      TypeError,
    );
    expect(calls).toBe(1);
  });

  it('stops after `attempts` attempts with the last error, which says how many attempts were made', async () => {
    const clock = new FakeClock();
    const attempt = failing([status(503), status(503), status(503), status(503), status(503)]);
    const error = await withRetry({ policy, method: 'GET', clock }, attempt.run).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'WFM_HTTP_STATUS',
      attempts: 4,
      details: expect.objectContaining({ attempts: 4 }),
    });
    expect(attempt.calls).toEqual([1, 2, 3, 4]);
    expect(clock.sleeps).toHaveLength(3);
  });

  it('sleeps with exponential backoff and full jitter between attempts', async () => {
    const clock = new FakeClock(undefined, 0.5);
    await withRetry({ policy, method: 'GET', clock }, failing([reset, reset, reset]).run);
    expect(clock.sleeps).toEqual([50, 100, 200]);
  });

  it('honours Retry-After in seconds and as an HTTP-date, capped by maxDelayMs', async () => {
    const clock = new FakeClock(Date.parse('2024-05-01T12:00:00Z'));
    const attempt = failing([
      status(429, '0'),
      status(429, 'Wed, 01 May 2024 12:00:00 GMT'),
      status(503, '3600'),
    ]);
    await withRetry({ policy, method: 'GET', clock }, attempt.run);
    expect(clock.sleeps).toEqual([0, 0, 1000]);
    const later = new FakeClock(Date.parse('2024-05-01T12:00:00Z'));
    await withRetry(
      { policy, method: 'GET', clock: later },
      failing([status(429, 'Wed, 01 May 2024 12:00:00.7 GMT'), status(429, '1')]).run,
    );
    expect(later.sleeps).toEqual([700, 1000]);
  });

  it('starts no retry after maxTotalMs since the first attempt', async () => {
    const clock = new FakeClock();
    const slow = { ...policy, attempts: 100, maxTotalMs: 2_500, baseDelayMs: 1_000, maxDelayMs: 1_000 };
    clock.draw = 0.999_999;
    const attempt = failing(Array.from({ length: 100 }, () => status(503)));
    await expect(withRetry({ policy: slow, method: 'GET', clock }, attempt.run)).rejects.toMatchObject({
      status: 503,
    });
    expect(clock.sleeps).toEqual([999, 999]);
    expect(attempt.calls).toHaveLength(3);
  });

  it('tells onRetry about each retry: number, delay and the error that caused it', async () => {
    const events: RetryEvent[] = [];
    await withRetry(
      { policy, method: 'GET', clock: new FakeClock(), onRetry: (e) => events.push(e) },
      failing([status(500), reset]).run,
    );
    expect(events.map((e) => [e.retry, e.delayMs, e.error.code])).toEqual([
      [1, 50, 'WFM_HTTP_STATUS'],
      [2, 100, 'WFM_NETWORK'],
    ]);
  });

  it('gives up with AbortedError when the signal aborts between attempts', async () => {
    const controller = new AbortController();
    const run = () => {
      controller.abort();
      return Promise.reject(reset(1));
    };
    await expect(
      withRetry({ policy, method: 'GET', clock: new FakeClock(), signal: controller.signal }, run),
    ).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('RetryBudget', () => {
  it('starts a fresh budget after progress, so a long read survives a failure every so often', async () => {
    const clock = new FakeClock();
    const budget = new RetryBudget({ policy: { ...policy, attempts: 2 }, method: 'GET', clock });
    for (let i = 0; i < 10; i++) {
      budget.beginAttempt();
      budget.madeProgress();
      await budget.beforeRetry(reset(budget.attempts));
    }
    expect(budget.attempts).toBe(10);
    // The 10th attempt made progress, then failed: attempt 1 of a fresh budget. The 11th makes none.
    budget.beginAttempt();
    await expect(budget.beforeRetry(reset(11))).rejects.toMatchObject({ code: 'WFM_NETWORK', attempts: 11 });
  });

  it('measures maxTotalMs from the first failure after progress, not from the start of the read', async () => {
    const clock = new FakeClock();
    const budget = new RetryBudget({
      policy: { ...policy, attempts: 10, maxTotalMs: 1_000 },
      method: 'GET',
      clock,
    });
    budget.beginAttempt();
    clock.nowMs += 60_000; // a long, healthy read
    budget.madeProgress();
    await expect(budget.beforeRetry(reset(1))).resolves.toBeUndefined();
  });
});

describe('abortableSleep', () => {
  it('rejects with AbortedError as soon as the signal aborts, long before the delay', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toBeInstanceOf(AbortedError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects at once when the signal is already aborted', async () => {
    await expect(abortableSleep(60_000, AbortSignal.abort())).rejects.toBeInstanceOf(AbortedError);
  });

  it('resolves after the delay', async () => {
    await expect(abortableSleep(1)).resolves.toBeUndefined();
  });
});
