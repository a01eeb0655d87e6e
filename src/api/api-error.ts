// Error replies of the control API: always `{error, message}` with a stable snake_case `error`
// and one line of `message`. Known failures map to their status (400 bad input, 401, 403 a job's
// destination outside the allowed roots, 404 (a published file that is not there included), 409,
// 413, 415, 503 when Redis is down); anything else is a 500 whose details go to the log only.

import type { FastifyReply } from 'fastify';
import { isShiftExportError } from '../errors.js';
import { oneLine } from '../one-line.js';

export interface ApiErrorBody {
  readonly error: string;
  readonly message: string;
}

/** A failure the API answers on purpose. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly error: string;

  constructor(statusCode: number, error: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.error = error;
  }
}

const FASTIFY_CODES: Readonly<Record<string, readonly [number, string]>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'body_too_large'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_request'],
};

/** Our own non-retryable errors that are not the caller's bad input (the rest answer 400). */
const SHIFT_EXPORT_CODES: Readonly<Record<string, readonly [number, string]>> = {
  DEST_NOT_FOUND: [404, 'not_found'],
  DEST_NOT_ALLOWED: [403, 'forbidden'],
  // The server's EXPORTS_FILE, not the request: the definitions cannot be used until it is fixed.
  EXPORTS_FILE_INVALID: [503, 'exports_file_invalid'],
};

/** Messages of ioredis and BullMQ when Redis is not connected. */
const REDIS_DOWN =
  /enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|Stream isn't writeable/i;

export interface MappedError {
  readonly status: number;
  readonly body: ApiErrorBody;
  /** True when the cause belongs in the log (a 5xx that is not an outage we expect). */
  readonly unexpected: boolean;
}

export function mapError(error: unknown): MappedError {
  if (error instanceof ApiError) return expected(error.statusCode, error.error, error.message);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    const known = FASTIFY_CODES[code];
    if (known !== undefined) return expected(known[0], known[1], messageOf(error));
  }
  if (isShiftExportError(error)) {
    const known = SHIFT_EXPORT_CODES[error.code];
    if (known !== undefined) return expected(known[0], known[1], error.toOneLine());
    if (error.code === 'REDIS_UNAVAILABLE') return expected(503, 'queue_unavailable', error.toOneLine());
    if (!error.retryable) return expected(400, 'invalid_request', error.toOneLine());
    return expected(503, 'unavailable', error.toOneLine());
  }
  if (error instanceof Error && REDIS_DOWN.test(error.message))
    return expected(503, 'queue_unavailable', 'the queue (Redis) is not reachable; try again later');
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return expected(status, 'invalid_request', messageOf(error));
  return {
    status: 500,
    body: { error: 'internal_error', message: 'internal error (see the API log)' },
    unexpected: true,
  };
}

function expected(status: number, error: string, message: string): MappedError {
  return { status, body: { error, message }, unexpected: false };
}

/** The error's message as one line without terminal controls (it may quote job data or paths). */
const messageOf = (error: unknown): string => oneLine(error instanceof Error ? error.message : String(error));

export function sendError(reply: FastifyReply, status: number, error: string, message: string): FastifyReply {
  return reply.code(status).send({ error, message } satisfies ApiErrorBody);
}
