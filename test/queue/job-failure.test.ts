import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { AbortedError, ConfigError, InvalidRequestError, ShiftExportError } from '../../src/errors.js';
import {
  isShutdownAbort,
  SHUTDOWN_REASON,
  toJobFailure,
  TransientJobError,
} from '../../src/queue/job-failure.js';

describe('toJobFailure', () => {
  it('makes terminal errors unrecoverable with a one-line reason', () => {
    const failure = toJobFailure(new ShiftExportError('WFM_AUTH', 'the upstream refused the token\n(401)'));
    expect(failure).toBeInstanceOf(UnrecoverableError);
    expect(failure.message).toBe('WFM_AUTH: the upstream refused the token (401)');
    expect(toJobFailure(new ConfigError('WFM_BASE_URL is not set'))).toBeInstanceOf(UnrecoverableError);
    expect(toJobFailure(new InvalidRequestError('--from is after --to'))).toBeInstanceOf(UnrecoverableError);
  });

  it('keeps transient and unknown errors retryable', () => {
    const transient = toJobFailure(new ShiftExportError('WFM_TIMEOUT', 'no answer', { retryable: true }));
    expect(transient).toBeInstanceOf(TransientJobError);
    expect(transient.message).toBe('WFM_TIMEOUT: no answer');
    expect(toJobFailure(new TypeError('boom'))).toBeInstanceOf(TransientJobError);
    expect(toJobFailure(new AbortedError())).not.toBeInstanceOf(UnrecoverableError);
  });

  it('passes on a failure already in job form, as an export thread reports it', () => {
    const fromThread = new TransientJobError('WFM_TIMEOUT: no answer');
    expect(toJobFailure(fromThread)).toBe(fromThread);
    const terminal = new UnrecoverableError('WFM_AUTH: refused');
    expect(toJobFailure(terminal)).toBe(terminal);
  });
});

describe('isShutdownAbort', () => {
  it('recognises only the worker shutdown reason', () => {
    const a = new AbortController();
    expect(isShutdownAbort(a.signal)).toBe(false);
    a.abort(SHUTDOWN_REASON);
    expect(isShutdownAbort(a.signal)).toBe(true);
    const b = new AbortController();
    b.abort('cancelled');
    expect(isShutdownAbort(b.signal)).toBe(false);
    expect(isShutdownAbort(undefined)).toBe(false);
  });
});
