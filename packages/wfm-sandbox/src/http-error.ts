// Error answers of the sandbox: `{ error, message }` with the status's reason phrase as `error`
// (PostgREST-style errors of the report add their `code`). Handlers throw HttpError; the app's
// error handler turns it, zod errors and fastify's own errors into that shape.

import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';

export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  readonly extra: Readonly<Record<string, string>>;

  constructor(status: number, message: string, extra: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

export interface ErrorBody {
  readonly error: string;
  readonly message: string;
  readonly code?: string;
}

export function errorBody(status: number, message: string, code?: string): ErrorBody {
  const body = { error: STATUS_CODES[status] ?? 'Error', message };
  return code === undefined ? body : { ...body, code };
}

export function sendError(reply: FastifyReply, status: number, message: string, code?: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, message, code));
}
