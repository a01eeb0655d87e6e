// The errors of talking to the WFM API: one class per stable code, each retryable or not by its
// nature, carrying what a log or a job failure needs — status, method, path (never the query,
// which may carry filters or keys), the attempt it happened on, a short body excerpt — and never
// the bearer token: excerpts are scrubbed of it, and nothing else that could hold it is kept.

import { ShiftExportError } from '../errors.js';
import { oneLine } from '../one-line.js';
import { REDACTED } from '../redact-secrets.js';

export const WFM_ERROR_CODES = {
  /** An unexpected HTTP status (e.g. 400, 404, or a retryable 5xx/408/429 once attempts ran out). */
  WFM_HTTP_STATUS: 'an unexpected HTTP status',
  /** 401 or 403: the token is missing, wrong, expired or lacks a role. Retrying cannot help. */
  WFM_AUTH: 'the upstream refused the token',
  /** Connect, headers or body timeout (a stalled body counts), the read deadline, a too slow body. */
  WFM_TIMEOUT: 'the upstream did not answer in time',
  /** Connection refused, reset, closed mid-body, DNS... */
  WFM_NETWORK: 'a network error',
  /**
   * The body is not the JSON the endpoint answers with (malformed, not an array, an HTML page, an
   * encoding the client cannot decode...).
   */
  WFM_BODY_INVALID: 'the body is not valid JSON of the expected shape',
  /** The report body ended before its closing "]". */
  WFM_BODY_TRUNCATED: 'the body ended early',
  /** Fewer (or more) report rows arrived than Content-Range announced: a row cap or a cut body. */
  WFM_INCOMPLETE: 'the report is incomplete',
  /** The body, or one row of it, is longer than WFM_MAX_BODY_BYTES / WFM_MAX_ROW_BYTES. */
  WFM_BODY_TOO_LARGE: 'the body is too large',
  /** Valid JSON that does not match the contract (a category without a name...). */
  WFM_RESPONSE_INVALID: 'the response does not match the interface specification',
  /** A broken read cannot resume without losing or repeating rows (ids not in ascending order). */
  WFM_RESUME_UNSAFE: 'the read cannot be resumed safely',
  /** The upstream ignores paging parameters (limit, id=gt., offset): paging would never end. */
  WFM_PAGING_UNSUPPORTED: 'the upstream does not page as configured',
} as const;

export type WfmErrorCode = keyof typeof WFM_ERROR_CODES;

const RETRYABLE: Readonly<Record<WfmErrorCode, boolean>> = {
  WFM_HTTP_STATUS: false, // decided per status, see WfmHttpStatusError
  WFM_AUTH: false,
  WFM_TIMEOUT: true,
  WFM_NETWORK: true,
  WFM_BODY_INVALID: true,
  WFM_BODY_TRUNCATED: true,
  WFM_INCOMPLETE: true,
  WFM_BODY_TOO_LARGE: false,
  WFM_RESPONSE_INVALID: false,
  WFM_RESUME_UNSAFE: true,
  WFM_PAGING_UNSUPPORTED: false,
};

/** Statuses that say "try again later". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Where an error happened. `path` has no query string. */
export interface WfmErrorContext {
  readonly method: string;
  readonly path: string;
  /** 1-based attempt this error ended (the total attempts when it is the final error). */
  readonly attempts: number;
  readonly status?: number;
  /** The first bytes of the response body, already scrubbed (see excerptOf). */
  readonly bodyExcerpt?: string;
  /** Raw Retry-After header of a 429/503, parsed by the retry policy. */
  readonly retryAfter?: string;
  readonly cause?: unknown;
  /** Further facts (counts, offsets); never a secret. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export const EXCERPT_CHARS = 200;

/**
 * A short, single-line excerpt of a body with every occurrence of `secret` replaced and control
 * characters escaped (`\u{1b}`, see one-line.ts), so that whatever the upstream sent cannot break a log line or
 * drive a terminal.
 */
export function excerptOf(body: string, secret: string | undefined): string {
  let text = scrub(body, secret).replace(/\s+/g, ' ').trim();
  if (text.length > EXCERPT_CHARS) text = `${text.slice(0, EXCERPT_CHARS)}…`;
  return oneLine(text);
}

/** Scrubs `secret` from a message of a lower layer (an undici error could echo anything). */
export function scrub(text: string, secret: string | undefined): string {
  return secret === undefined || secret === '' ? text : text.split(secret).join(REDACTED);
}

export class WfmError extends ShiftExportError {
  declare readonly code: WfmErrorCode;
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly retryAfter: string | undefined;

  constructor(code: WfmErrorCode, message: string, context: WfmErrorContext, retryable = RETRYABLE[code]) {
    super(
      code,
      `${message} (${context.method} ${context.path}${context.status === undefined ? '' : `, status ${context.status}`}, attempt ${context.attempts})`,
      {
        retryable,
        cause: context.cause,
        details: {
          method: context.method,
          path: context.path,
          attempts: context.attempts,
          ...(context.status === undefined ? {} : { status: context.status }),
          ...(context.bodyExcerpt === undefined || context.bodyExcerpt === ''
            ? {}
            : { bodyExcerpt: context.bodyExcerpt }),
          ...(context.retryAfter === undefined ? {} : { retryAfter: context.retryAfter }),
          ...context.extra,
        },
      },
    );
    this.status = context.status;
    this.method = context.method;
    this.path = context.path;
    this.attempts = context.attempts;
    this.retryAfter = context.retryAfter;
  }

  /** What logs and job failures store: no stack, no cause object (it could hold anything). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
    };
  }
}

export class WfmHttpStatusError extends WfmError {
  constructor(context: WfmErrorContext & { readonly status: number }) {
    super(
      'WFM_HTTP_STATUS',
      `the WFM API answered ${context.status}`,
      context,
      RETRYABLE_STATUSES.has(context.status),
    );
  }
}

export class WfmAuthError extends WfmError {
  constructor(context: WfmErrorContext & { readonly status: number }) {
    const why =
      context.status === 401
        ? 'the token is missing, wrong or expired'
        : 'the token lacks a role this call needs';
    super('WFM_AUTH', `the WFM API refused the request with ${context.status}: ${why}`, context);
  }
}

/**
 * Which limit ran out: undici's connect, headers and body (idle) timeouts, or the read guard's
 * deadline and minimum rate (read-guard.ts), which name their setting in `limit`.
 */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'deadline' | 'rate';

const TIMEOUT_MESSAGES: Readonly<Record<TimeoutPhase, string>> = {
  connect: 'the WFM API did not accept the connection in time',
  headers: 'the WFM API did not send response headers in time',
  body: 'the WFM API did not send more of the body in time',
  deadline: 'the WFM API did not finish its answer in time',
  rate: 'the WFM API sent its body too slowly',
};

export class WfmTimeoutError extends WfmError {
  constructor(phase: TimeoutPhase, context: WfmErrorContext, limit?: string) {
    super('WFM_TIMEOUT', `${TIMEOUT_MESSAGES[phase]}${limit === undefined ? '' : `: ${limit}`}`, {
      ...context,
      extra: { ...context.extra, phase },
    });
  }
}

export class WfmNetworkError extends WfmError {
  constructor(detail: string, context: WfmErrorContext) {
    super('WFM_NETWORK', `network error talking to the WFM API: ${detail}`, context);
  }
}

/**
 * What arrived, for a body the client cannot read: the headers that say what it is and its first
 * characters, each already an excerpt (scrubbed of the token, one line, controls escaped).
 */
export interface ReceivedBody {
  readonly contentType: string;
  readonly contentEncoding: string;
  readonly head: string;
}

export class WfmBodyInvalidError extends WfmError {
  constructor(detail: string, context: WfmErrorContext, received?: ReceivedBody) {
    super(
      'WFM_BODY_INVALID',
      `the WFM API sent a body this client cannot read: ${detail}${received === undefined ? '' : `; received ${describeReceived(received)}`}`,
      received === undefined
        ? context
        : {
            ...context,
            bodyExcerpt: received.head,
            extra: {
              ...context.extra,
              contentType: received.contentType,
              contentEncoding: received.contentEncoding,
            },
          },
    );
  }
}

function describeReceived(received: ReceivedBody): string {
  return `Content-Type ${received.contentType}, Content-Encoding ${received.contentEncoding}, body starting "${received.head}"`;
}

export class WfmBodyTruncatedError extends WfmError {
  constructor(detail: string, context: WfmErrorContext) {
    super('WFM_BODY_TRUNCATED', `the WFM API body ended early: ${detail}`, context);
  }
}

export class WfmIncompleteError extends WfmError {
  constructor(expected: number, received: number, context: WfmErrorContext) {
    super(
      'WFM_INCOMPLETE',
      `the WFM API announced ${expected} rows in Content-Range but sent ${received} (a server-side row cap or a cut body)`,
      { ...context, extra: { ...context.extra, expectedRows: expected, receivedRows: received } },
    );
  }
}

export class WfmBodyTooLargeError extends WfmError {
  constructor(detail: string, context: WfmErrorContext) {
    super('WFM_BODY_TOO_LARGE', `the WFM API body is too large: ${detail}`, context);
  }
}

export class WfmResponseInvalidError extends WfmError {
  constructor(detail: string, context: WfmErrorContext) {
    super(
      'WFM_RESPONSE_INVALID',
      `the WFM API response does not match the interface specification: ${detail}`,
      context,
    );
  }
}

export class WfmResumeUnsafeError extends WfmError {
  constructor(detail: string, context: WfmErrorContext) {
    super('WFM_RESUME_UNSAFE', `the report read broke and cannot resume safely: ${detail}`, context);
  }
}

export class WfmPagingUnsupportedError extends WfmError {
  constructor(detail: string, context: WfmErrorContext) {
    super(
      'WFM_PAGING_UNSUPPORTED',
      `the WFM API does not page as configured (WFM_PAGING): ${detail}`,
      context,
    );
  }
}
