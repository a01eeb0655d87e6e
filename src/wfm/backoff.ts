// How long to wait before the next attempt: exponential backoff with full jitter (a uniformly random
// delay between 0 and min(maxDelay, base * 2^(retry-1)), so many clients hitting one recovering
// upstream spread out), unless the upstream said how long with Retry-After.

import type { RetryPolicy } from '../config/wfm-config.js';

/** Delay before retry number `retry` (1 = the first retry); `random` returns [0, 1). */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

const DELTA_SECONDS = /^\s*(\d+)\s*$/;

/**
 * Milliseconds a Retry-After header asks us to wait: delta-seconds ("120") or an HTTP-date
 * ("Wed, 21 Oct 2015 07:28:00 GMT", compared with `nowMs`). Undefined when absent or unreadable;
 * a date in the past means 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = DELTA_SECONDS.exec(value);
  if (seconds) return Number(seconds[1]) * 1000;
  // Only dates with letters: Date.parse would read "1.5" or "-3" as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  // HTTP dates are always GMT; asctime() dates carry no zone and Date.parse would read them as local.
  const at = Date.parse(/\b(GMT|UTC)\b/i.test(value) ? value : `${value} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * The wait before retry `retry` after an error: Retry-After when the upstream sent one (capped by
 * maxDelayMs, so a hostile "Retry-After: 86400" cannot park a job for a day), else backoff.
 */
export function retryDelayMs(
  retry: number,
  policy: RetryPolicy,
  retryAfter: string | undefined,
  nowMs: number,
  random: () => number,
): number {
  const asked = parseRetryAfter(retryAfter, nowMs);
  if (asked !== undefined) return Math.min(asked, policy.maxDelayMs);
  return backoffDelayMs(retry, policy, random);
}
