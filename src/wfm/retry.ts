// Retrying WFM calls, as a piece that wraps any attempt (`withRetry`) or drives a resumable read
// (`RetryBudget`), with no HTTP knowledge of its own: an attempt throws a WfmError that says
// whether it is retryable, this decides whether and when to go again.
//
// Why not undici's retry interceptor: it resumes a body that broke midway with a byte `Range`
// request (If-Match on a strong ETag), which holds only when the server sends the very same bytes
// again. The report is generated afresh for each request, so a byte offset into one answer means
// nothing in the next; the report resumes by row instead, asking for `id=gt.<last id handed out>`
// (see report-reader.ts), which no Range request can say. One small policy for plain calls and
// that resume keeps attempts, the total-time budget, the onRetry count and the attempt numbers in
// errors consistent. Clock, sleep and randomness are
// injectable so backoff is tested without waiting.
//
// Rules: only GET, PUT and DELETE are retried (idempotent by HTTP's definition; a POST that timed
// out may have created something). At most `attempts` attempts, and no retry starts later than
// `maxTotalMs` after the first attempt. A resumable read that made progress since its last failure
// (handed out new rows) starts a fresh budget: the budget bounds failures in a row, so a long read
// that hits a reset every few minutes still finishes, while an upstream that fails without
// progress stops it.

import { setTimeout as delay } from 'node:timers/promises';
import type { RetryPolicy } from '../config/wfm-config.js';
import { AbortedError } from '../errors.js';
import { retryDelayMs } from './backoff.js';
import { WfmError } from './wfm-error.js';

export interface RetryClock {
  now(): number;
  /** Resolves after `ms`, or rejects with AbortedError as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new AbortedError('aborted while waiting to retry a WFM request', signal.reason);
  try {
    await delay(ms, undefined, signal === undefined ? {} : { signal });
  } catch (error) {
    if (signal?.aborted)
      throw new AbortedError('aborted while waiting to retry a WFM request', signal.reason);
    throw error;
  }
}

export const systemClock: RetryClock = Object.freeze({
  now: () => Date.now(),
  sleep: abortableSleep,
  random: () => Math.random(),
});

export interface RetryEvent {
  /** The retry about to happen: 1 for the second attempt. */
  readonly retry: number;
  readonly delayMs: number;
  /** The error that caused it (its code says why: WFM_TIMEOUT, WFM_INCOMPLETE...). */
  readonly error: WfmError;
}

export type OnRetry = (event: RetryEvent) => void;

/** Methods we retry: idempotent by HTTP's definition. POST never. */
export const RETRYABLE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

export interface RetryOptions {
  readonly policy: RetryPolicy;
  readonly method: string;
  readonly clock?: RetryClock;
  readonly onRetry?: OnRetry;
  readonly signal?: AbortSignal;
}

/** The attempts of one logical request (one call, or one resumable report read). */
export class RetryBudget {
  readonly #policy: RetryPolicy;
  readonly #clock: RetryClock;
  readonly #onRetry: OnRetry | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #methodRetryable: boolean;
  #attempts = 0;
  #failuresInRow = 0;
  #windowStart: number | undefined;

  constructor(options: RetryOptions) {
    this.#policy = options.policy;
    this.#clock = options.clock ?? systemClock;
    this.#onRetry = options.onRetry;
    this.#signal = options.signal;
    this.#methodRetryable = RETRYABLE_METHODS.has(options.method.toUpperCase());
  }

  /** Attempts started so far, over the whole life of the budget. */
  get attempts(): number {
    return this.#attempts;
  }

  /** Call before each attempt; returns its 1-based number (for error details). */
  beginAttempt(): number {
    if (this.#signal?.aborted) throw new AbortedError('the WFM request was aborted', this.#signal.reason);
    this.#windowStart ??= this.#clock.now();
    this.#attempts += 1;
    return this.#attempts;
  }

  /** The current attempt handed out new results: the next failure starts a fresh budget. */
  madeProgress(): void {
    this.#failuresInRow = 0;
    this.#windowStart = undefined;
  }

  /**
   * After a failed attempt: resolves after the backoff when another attempt may start, otherwise
   * throws (the error itself, or AbortedError when the caller gave up).
   */
  async beforeRetry(error: unknown): Promise<void> {
    if (this.#signal?.aborted) throw new AbortedError('the WFM request was aborted', this.#signal.reason);
    if (!(error instanceof WfmError) || !error.retryable || !this.#methodRetryable) throw error;
    this.#failuresInRow += 1;
    if (this.#failuresInRow >= this.#policy.attempts) throw error;
    const now = this.#clock.now();
    const retry = this.#failuresInRow;
    const delayMs = retryDelayMs(retry, this.#policy, error.retryAfter, now, () => this.#clock.random());
    const start = this.#windowStart ?? now;
    if (now + delayMs - start > this.#policy.maxTotalMs) throw error;
    this.#onRetry?.({ retry, delayMs, error });
    await this.#clock.sleep(delayMs, this.#signal);
    // A fresh window for a resumed read starts at its first failure, not at the retry.
    this.#windowStart ??= start;
  }
}

/** Runs `attempt` until it succeeds, a non-retryable error occurs or the budget is spent. */
export async function withRetry<T>(
  options: RetryOptions,
  attempt: (attemptNumber: number) => Promise<T>,
): Promise<T> {
  const budget = new RetryBudget(options);
  for (;;) {
    const n = budget.beginAttempt();
    try {
      return await attempt(n);
    } catch (error) {
      await budget.beforeRetry(error);
    }
  }
}
