// Bounds one request's read in time, where undici's timeouts cannot: its body timeout is the
// longest silence between two chunks, so a body that trickles a byte a second never trips it and
// an export would sit "fetching 0 rows" forever. Two limits, per request (one report attempt or
// page), each failing it with a retryable WFM_TIMEOUT that names the setting:
//
// - the deadline (WFM_READ_DEADLINE_MS): wall-clock time from sending the request to the end of
//   its body. A report read cut by it resumes after the last row handed out, so an honest but
//   long read still finishes; the retry budget (WFM_RETRY_MAX_TOTAL_MS) bounds an upstream that
//   never gets anywhere.
// - the minimum rate (WFM_READ_MIN_BYTES_PER_SEC over WFM_READ_RATE_WINDOW_MS): body bytes on the
//   wire per second, measured only over the time spent *waiting* for them. While our own side is
//   the bottleneck (a slow disk or S3 upload holding the read back), the socket is paused and no
//   bytes arrive through no fault of the upstream; that time is not counted. Windows are
//   consecutive: each one that accumulates WFM_READ_RATE_WINDOW_MS of waiting is judged alone.
//
// A limit fires by aborting the request's AbortSignal with the WfmTimeoutError as its reason:
// undici then destroys the body and its socket, and whoever reads the body gets that error. The
// caller's own signal aborts the request too. Timers are unref'ed and cleared by dispose(), which
// the body's release calls however the read ends.

import type { ReadLimits } from '../config/wfm-config.js';
import type { BodyBytes } from './body-bytes.js';
import { WfmTimeoutError, type WfmErrorContext } from './wfm-error.js';

export class ReadGuard {
  readonly #limits: ReadLimits;
  readonly #context: WfmErrorContext;
  /** The request's body bytes, counted by its ResponseBody. */
  readonly #bytes: BodyBytes;
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal | undefined;
  readonly #onOuterAbort: () => void;
  readonly #startedAt = performance.now();
  #deadline: NodeJS.Timeout | undefined;
  #rateTimer: NodeJS.Timeout | undefined;
  #waitingSince: number | undefined;
  /** Waiting time of the current rate window, and the wire bytes counted when it began. */
  #windowWaitedMs = 0;
  #windowStartBytes = 0;
  #disposed = false;

  constructor(limits: ReadLimits, context: WfmErrorContext, bytes: BodyBytes, outer?: AbortSignal) {
    this.#limits = limits;
    this.#context = context;
    this.#bytes = bytes;
    this.#outer = outer;
    this.#onOuterAbort = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) this.#onOuterAbort();
    else outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
    this.#deadline = setTimeout(() => this.#fail('deadline'), limits.deadlineMs).unref();
  }

  /** The request's signal: aborted by the caller's signal or by a limit (reason: WfmTimeoutError). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The reader is about to wait for the next decoded chunk. */
  waiting(): void {
    if (this.#disposed || this.#limits.minBytesPerSec === 0) return;
    this.#waitingSince = performance.now();
    this.#rateTimer ??= setTimeout(
      () => this.#onRateTimer(),
      this.#limits.rateWindowMs - this.#windowWaitedMs,
    ).unref();
  }

  /** The wait is over. */
  waited(): void {
    if (this.#waitingSince === undefined) return;
    this.#windowWaitedMs += performance.now() - this.#waitingSince;
    this.#waitingSince = undefined;
    if (this.#windowWaitedMs >= this.#limits.rateWindowMs) this.#judgeWindow();
  }

  /** Clears the timers and lets go of the caller's signal; the read is over, however it ended. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#deadline);
    clearTimeout(this.#rateTimer);
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }

  #onRateTimer(): void {
    this.#rateTimer = undefined;
    if (this.#disposed || this.#waitingSince === undefined) return; // re-armed by the next wait
    const now = performance.now();
    this.#windowWaitedMs += now - this.#waitingSince;
    this.#waitingSince = now;
    if (this.#windowWaitedMs >= this.#limits.rateWindowMs) this.#judgeWindow();
    if (!this.#disposed)
      this.#rateTimer = setTimeout(
        () => this.#onRateTimer(),
        Math.max(1, this.#limits.rateWindowMs - this.#windowWaitedMs),
      ).unref();
  }

  #judgeWindow(): void {
    const bytes = this.#bytes.wireBytes - this.#windowStartBytes;
    if (bytes < (this.#limits.minBytesPerSec * this.#windowWaitedMs) / 1000) {
      this.#fail('rate');
      return;
    }
    this.#windowWaitedMs = 0;
    this.#windowStartBytes = this.#bytes.wireBytes;
  }

  #fail(phase: 'deadline' | 'rate'): void {
    if (this.#disposed) return;
    const limits = this.#limits;
    const elapsed = seconds(performance.now() - this.#startedAt);
    const limit =
      phase === 'deadline'
        ? `WFM_READ_DEADLINE_MS=${limits.deadlineMs} ran out after ${this.#bytes.wireBytes} body bytes in ${elapsed}`
        : `${this.#bytes.wireBytes - this.#windowStartBytes} bytes in ${seconds(this.#windowWaitedMs)} of waiting, below WFM_READ_MIN_BYTES_PER_SEC=${limits.minBytesPerSec} (averaged over WFM_READ_RATE_WINDOW_MS=${limits.rateWindowMs})`;
    const error = new WfmTimeoutError(
      phase,
      {
        ...this.#context,
        extra: { ...this.#context.extra, wireBytes: this.#bytes.wireBytes },
      },
      limit,
    );
    this.dispose();
    this.#controller.abort(error);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
