// One HTTP exchange with the WFM API over a keep-alive undici Pool: adds the bearer token, asks for
// a compressed body (WFM_COMPRESSION) and hands it back decoded (response-body.ts), applies the
// connect/headers/body timeouts of WfmConfig and the read deadline and minimum rate of each request
// (read-guard.ts), turns every failure into a typed WfmError (redacted: the token never reaches an
// error), and never leaks a socket — a body that is not handed to the caller is read to a short
// excerpt and destroyed. No retries here (see retry.ts).

import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import type { ConnectedWfmConfig, ReadLimits } from '../config/wfm-config.js';
import { AbortedError } from '../errors.js';
import { BodyBytes } from './body-bytes.js';
import { ReadGuard } from './read-guard.js';
import { ACCEPT_ENCODING, headerValue, ResponseBody } from './response-body.js';
import {
  excerptOf,
  scrub,
  WfmAuthError,
  WfmBodyTruncatedError,
  WfmHttpStatusError,
  WfmNetworkError,
  WfmError,
  WfmTimeoutError,
  type WfmErrorContext,
} from './wfm-error.js';
import { withQuery } from './wfm-query.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface WfmRequest {
  readonly method: HttpMethod;
  /** Path from the API root, starting with /v1. */
  readonly path: string;
  /** Already encoded, without `?`. */
  readonly query?: string;
  readonly json?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Attempt number, for error details. */
  readonly attempt: number;
  /** Statuses handed back to the caller instead of thrown (e.g. 416 at the end of offset paging). */
  readonly acceptStatuses?: ReadonlySet<number>;
  /** A tally the body's bytes add to, besides the client's (a report read over its attempts). */
  readonly bytes?: BodyBytes;
}

export interface WfmResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Decoded; the caller must release() it (or dump() it) however the read ends. */
  readonly body: ResponseBody;
}

/**
 * Body bytes undici buffers before it stops reading the socket (its default is 64 KiB). Larger, so
 * the download goes on while a batch is parsed instead of the two taking turns.
 */
const BODY_HIGH_WATER_MARK = 2 * 1024 * 1024;

export class WfmTransport {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #token: string;
  readonly #readLimits: ReadLimits;
  readonly #acceptEncoding: string;
  /** Bytes of every response body so far, on the wire and decoded (error bodies included). */
  readonly traffic = new BodyBytes();

  constructor(config: ConnectedWfmConfig) {
    const url = new URL(config.baseUrl);
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#token = config.token;
    this.#readLimits = config.read;
    this.#acceptEncoding = config.compression ? ACCEPT_ENCODING : 'identity';
    this.#pool = new Pool(url.origin, {
      connections: config.connections,
      connect: { timeout: config.connectTimeoutMs },
      headersTimeout: config.headersTimeoutMs,
      bodyTimeout: config.bodyTimeoutMs,
      keepAliveTimeout: 30_000,
    });
  }

  /** The bearer token, only so that callers can scrub it from text they build. */
  get secret(): string {
    return this.#token;
  }

  /** Sends one request; resolves with a 2xx (or accepted) response whose body the caller owns. */
  async send(request: WfmRequest): Promise<WfmResponse> {
    const context = { method: request.method, path: request.path, attempts: request.attempt };
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': this.#acceptEncoding,
      ...request.headers,
      authorization: `Bearer ${this.#token}`,
    };
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    const bytes = new BodyBytes(this.traffic, request.bytes);
    const guard = new ReadGuard(this.#readLimits, context, bytes, request.signal);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.#pool.request({
        method: request.method,
        path: withQuery(this.#basePath + request.path, request.query ?? ''),
        headers,
        body: body ?? null,
        signal: guard.signal,
        highWaterMark: BODY_HIGH_WATER_MARK,
      });
    } catch (error) {
      guard.dispose();
      throw this.mapError(error, context, 'headers', request.signal);
    }
    const { statusCode: status } = response;
    const decoded = new ResponseBody(response.body, response.headers, {
      guard,
      bytes,
      context: { ...context, status },
      secret: this.#token,
    });
    if ((status >= 200 && status < 300) || request.acceptStatuses?.has(status)) {
      return { status, headers: response.headers, body: decoded };
    }
    const failed = { ...context, status, bodyExcerpt: await decoded.excerpt() };
    if (status === 401 || status === 403) throw new WfmAuthError(failed);
    const retryAfter = headerValue(response.headers, 'retry-after');
    throw new WfmHttpStatusError(
      retryAfter === undefined ? failed : { ...failed, retryAfter: excerptOf(retryAfter, this.#token) },
    );
  }

  /**
   * A typed error for anything thrown while sending or reading a body. `phase` says which timeout
   * a bare timeout means. Errors that are already typed pass through.
   */
  mapError(error: unknown, context: WfmErrorContext, phase: 'headers' | 'body', signal?: AbortSignal): Error {
    if (signal?.aborted) return new AbortedError('the WFM request was aborted', signal.reason);
    if (error instanceof AbortedError || error instanceof WfmError) return error;
    const ctx = { ...context, cause: error };
    if (error instanceof undiciErrors.ConnectTimeoutError) return new WfmTimeoutError('connect', ctx);
    if (error instanceof undiciErrors.HeadersTimeoutError) return new WfmTimeoutError('headers', ctx);
    if (error instanceof undiciErrors.BodyTimeoutError) return new WfmTimeoutError('body', ctx);
    if (error instanceof undiciErrors.ResponseContentLengthMismatchError) {
      return new WfmBodyTruncatedError('fewer bytes than Content-Length', ctx);
    }
    if (error instanceof Error) {
      const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
      const detail = scrub(`${code === undefined ? '' : `${code} `}${error.message}`, this.#token);
      return new WfmNetworkError(phase === 'body' ? `${detail} (while reading the body)` : detail, ctx);
    }
    return new WfmNetworkError(scrub(String(error), this.#token), ctx);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
