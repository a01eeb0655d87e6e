// The one base error of shift-export. Every error we raise on purpose carries a stable string code
// (documented in docs/errors.md) and says whether trying again can help: the worker turns
// non-retryable errors into BullMQ UnrecoverableErrors, the CLI prints `code: message` on one line.

import { oneLine } from './one-line.js';
import { redactSecrets } from './redact-secrets.js';

export interface ShiftExportErrorOptions {
  /** True when the same call may succeed later (network, 5xx, 429, truncated body...). */
  readonly retryable?: boolean;
  readonly cause?: unknown;
  /** Extra facts for logs and job failures. Never put a secret here. */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

export class ShiftExportError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: ShiftExportErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = Object.freeze({ ...options.details });
  }

  /** One line for a terminal or a job's failure reason. */
  toOneLine(): string {
    return oneLine(`${this.code}: ${this.message}`);
  }
}

/**
 * A setting (env var, flag, job data) is missing or malformed. Never retryable. Its message loses
 * URL credentials and password=… parameters, whoever built it (redact-secrets.ts).
 */
export class ConfigError extends ShiftExportError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('CONFIG_INVALID', redactSecrets(message), { details });
  }
}

/** The export was asked for something impossible (bad period, unknown format...). Never retryable. */
export class InvalidRequestError extends ShiftExportError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('REQUEST_INVALID', message, { details });
  }
}

/** The run was cancelled (signal, shutdown). Retryable: another attempt may finish it. */
export class AbortedError extends ShiftExportError {
  constructor(message = 'the export was aborted', cause?: unknown) {
    super('ABORTED', message, { retryable: true, cause });
  }
}

export function isShiftExportError(error: unknown): error is ShiftExportError {
  return error instanceof ShiftExportError;
}

/** A one-line description of any thrown value, for logs and terminals. */
export function describeError(error: unknown): string {
  if (error instanceof ShiftExportError) return error.toOneLine();
  if (error instanceof Error) return oneLine(`${error.name}: ${error.message}`);
  return oneLine(String(error));
}
