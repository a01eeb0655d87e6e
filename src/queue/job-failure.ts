// How a processor's failure reaches BullMQ: one line, and the right kind. A ShiftExportError that
// says retrying cannot help (401/403, invalid config, invalid period, invalid job data) becomes an
// UnrecoverableError, so the job fails at once instead of burning its attempts; everything else
// (network, 5xx, 429, S3, truncated report, and unknown errors) stays retryable. The message is
// what `status` and the API show as the failure reason.

import { UnrecoverableError } from 'bullmq';
import { describeError, isShiftExportError } from '../errors.js';

/** The AbortSignal reason the worker uses when it stops: the job is handed back, not failed. */
export const SHUTDOWN_REASON = 'the worker is shutting down';

export function isShutdownAbort(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason === SHUTDOWN_REASON;
}

/** A failed export attempt that another attempt may fix. */
export class TransientJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientJobError';
  }
}

export function toJobFailure(error: unknown): Error {
  if (error instanceof UnrecoverableError || error instanceof TransientJobError) return error;
  const line = describeError(error);
  if (isShiftExportError(error) && !error.retryable) return new UnrecoverableError(line);
  return new TransientJobError(line, { cause: error });
}
