// The WFM API client: every endpoint of the WFM API (docs/wfm-api.md) with typed inputs and
// outputs checked by the zod schemas of wfm-contract, one keep-alive pool, retries of GET/PUT/DELETE
// (retry.ts), typed errors (wfm-error.ts), and the report as a stream of raw row batches
// (report-reader.ts). Every call takes an AbortSignal.

import type { z } from 'zod';
import { prettifyError } from 'zod';
import type { ConnectedWfmConfig } from '../config/wfm-config.js';
import type { RawRows } from '../domain/raw-rows.js';
import { InvalidRequestError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { CutParser } from './parsed-cuts.js';
import { drainReport, readParsedReport, readReport, type ReadShiftsOptions } from './report-reader.js';
import type { RowRange } from './resume-position.js';
import { systemClock, withRetry, type OnRetry, type RetryClock } from './retry.js';
import {
  CATEGORIES_PATH,
  categoryInputSchema,
  categorySchema,
  emptyObjectSchema,
  type Category,
  type CategoryInput,
  type CategoryListQuery,
} from 'wfm-contract/category';
import {
  DIVISIONS_PATH,
  divisionSchema,
  divisionCreateSchema,
  divisionUpdateSchema,
  type Division,
  type DivisionCreate,
  type DivisionField,
  type DivisionListQuery,
  type DivisionUpdate,
} from 'wfm-contract/division';
import {
  excerptOf,
  WfmBodyInvalidError,
  WfmBodyTooLargeError,
  WfmResponseInvalidError,
  type WfmErrorContext,
} from './wfm-error.js';
import { categoryListQuery, divisionListQuery, fieldsQuery } from './wfm-query.js';
import { WfmTransport, type WfmRequest, type WfmResponse } from './wfm-transport.js';

export type { ReadProgress, ReadShiftsOptions } from './report-reader.js';

/**
 * Largest non-report JSON body read into memory (the report streams instead), counted decoded: a
 * division list of a very large chain is a few MB, and a small gzip body must not make us hold
 * hundreds of MB (the buffer, its text and the parsed value are alive at once).
 */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

export interface WfmClientOptions {
  /** Clock, sleep and randomness of retries (tests inject a fake). */
  readonly clock?: RetryClock;
  /** Called before every retry or resume, e.g. to count upstream retries in metrics. */
  readonly onRetry?: OnRetry;
  /** Retries are logged at warn (code, attempt, delay); default: silent. */
  readonly logger?: Logger;
  /** Bytes of complete report rows parsed at once (default 48 KiB, DEFAULT_BATCH_BYTES). */
  readonly reportBatchBytes?: number;
  /** Who parses the report's cuts into rows; default: this thread, each cut before the next. */
  readonly reportParser?: CutParser<RawRows>;
}

export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
}

interface JsonCall<S extends z.ZodType> extends Pick<WfmRequest, 'method' | 'path' | 'query' | 'json'> {
  readonly schema: S;
  readonly signal: AbortSignal | undefined;
}

export class WfmClient {
  readonly #config: ConnectedWfmConfig;
  readonly #transport: WfmTransport;
  readonly #reportParser: CutParser<RawRows> | undefined;
  readonly #clock: RetryClock;
  readonly #onRetry: OnRetry;
  readonly #batchBytes: number | undefined;

  constructor(config: ConnectedWfmConfig, options: WfmClientOptions = {}) {
    this.#config = config;
    this.#reportParser = options.reportParser;
    this.#transport = new WfmTransport(config);
    this.#clock = options.clock ?? systemClock;
    const logger = options.logger ?? silentLogger;
    const onRetry = options.onRetry;
    this.#onRetry = (event) => {
      const { error } = event;
      logger.warn(
        {
          code: error.code,
          method: error.method,
          path: error.path,
          status: error.status,
          retry: event.retry,
          delayMs: event.delayMs,
          // Already scrubbed of the token; says which limit a WFM_TIMEOUT hit, what a body was.
          reason: error.message,
        },
        `retrying a WFM request after ${error.code}`,
      );
      onRetry?.(event);
    };
    this.#batchBytes = options.reportBatchBytes;
  }

  // --- categories (spec 4.1) ----------------------------------------------------------------

  async listCategories(query: CategoryListQuery & CallOptions = {}): Promise<Category[]> {
    return this.#call({
      method: 'GET',
      path: CATEGORIES_PATH,
      query: categoryListQuery(query),
      schema: categorySchema.array(),
      signal: query.signal,
    });
  }

  async createCategory(body: CategoryInput, options: CallOptions = {}): Promise<Category> {
    const json = checkInput(categoryInputSchema, body, 'createCategory');
    return this.#call({
      method: 'POST',
      path: CATEGORIES_PATH,
      json,
      schema: categorySchema,
      signal: options.signal,
    });
  }

  async updateCategory(id: string, body: CategoryInput, options: CallOptions = {}): Promise<Category> {
    const json = checkInput(categoryInputSchema, body, 'updateCategory');
    return this.#call({
      method: 'PUT',
      path: categoryPath(id),
      json,
      schema: categorySchema,
      signal: options.signal,
    });
  }

  async deleteCategory(id: string, options: CallOptions = {}): Promise<void> {
    await this.#call({
      method: 'DELETE',
      path: categoryPath(id),
      schema: emptyObjectSchema,
      signal: options.signal,
    });
  }

  // --- divisions (spec 4.2) -----------------------------------------------------------------

  async listDivisions(query: DivisionListQuery & CallOptions = {}): Promise<Division[]> {
    for (const [name, value] of [
      ['userId', query.userId],
      ['businessDirId', query.businessDirId],
      ['shopId', query.shopId],
    ] as const) {
      if (value !== undefined) checkInteger(value, `listDivisions ${name}`);
    }
    for (const id of query.ids ?? []) checkInteger(id, 'listDivisions ids');
    // "Only divisions with these ids", none given: none, not all (an empty ids= is not sent).
    if (query.ids !== undefined && query.ids.length === 0) return [];
    return this.#call({
      method: 'GET',
      path: DIVISIONS_PATH,
      query: divisionListQuery(query),
      schema: divisionSchema.array(),
      signal: query.signal,
    });
  }

  async getDivision(
    id: number,
    options: { readonly fields?: readonly DivisionField[] } & CallOptions = {},
  ): Promise<Division> {
    return this.#call({
      method: 'GET',
      path: divisionPath(id),
      query: fieldsQuery(options.fields),
      schema: divisionSchema,
      signal: options.signal,
    });
  }

  async createDivision(body: DivisionCreate, options: CallOptions = {}): Promise<Division> {
    const json = checkInput(divisionCreateSchema, body, 'createDivision');
    return this.#call({
      method: 'POST',
      path: DIVISIONS_PATH,
      json,
      schema: divisionSchema,
      signal: options.signal,
    });
  }

  async updateDivision(id: number, body: DivisionUpdate, options: CallOptions = {}): Promise<Division> {
    const json = checkInput(divisionUpdateSchema, body, 'updateDivision');
    return this.#call({
      method: 'PUT',
      path: divisionPath(id),
      json,
      schema: divisionSchema,
      signal: options.signal,
    });
  }

  // --- the report (spec 4.3) ----------------------------------------------------------------

  /** Batches of raw parsed rows with their texts (validated downstream), complete or failing; see report-reader.ts. */
  readShifts(options: ReadShiftsOptions = {}): AsyncIterable<RawRows> {
    return readReport(this.#reportDeps(), options, this.#reportParser);
  }

  /** The report as ranges of cuts parsed by `parser` (export threads); see report-reader.ts. */
  readParsedShifts<B>(
    parser: CutParser<B>,
    options: ReadShiftsOptions = {},
  ): AsyncIterable<readonly RowRange<B>[]> {
    return readParsedReport(this.#reportDeps(), options, parser);
  }

  /** Downloads the report once and discards it unparsed: the bench's ceiling. */
  drainReport(
    options: ReadShiftsOptions = {},
  ): Promise<{ readonly bytes: number; readonly wireBytes: number }> {
    return drainReport(this.#reportDeps(), options);
  }

  /**
   * Bytes of every response body this client received, on the wire (compressed when the upstream
   * compressed) and decoded: what a worker adds to /metrics after each export attempt.
   */
  get traffic(): { readonly wireBytes: number; readonly decodedBytes: number } {
    return this.#transport.traffic;
  }

  /** Closes the pool once running requests are done. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  #reportDeps() {
    return {
      transport: this.#transport,
      config: this.#config,
      clock: this.#clock,
      onRetry: this.#onRetry,
      ...(this.#batchBytes === undefined ? {} : { batchBytes: this.#batchBytes }),
    };
  }

  #call<S extends z.ZodType>(call: JsonCall<S>): Promise<z.infer<S>> {
    return withRetry(
      {
        policy: this.#config.retry,
        method: call.method,
        clock: this.#clock,
        onRetry: this.#onRetry,
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      },
      async (attempt) => {
        const { schema, signal, ...request } = call;
        const response = await this.#transport.send({
          ...request,
          attempt,
          ...(signal === undefined ? {} : { signal }),
        });
        const context = { method: call.method, path: call.path, attempts: attempt, status: response.status };
        const value = await this.#readJson(response, context, signal);
        const parsed = schema.safeParse(value);
        if (!parsed.success) {
          throw new WfmResponseInvalidError(
            excerptOf(prettifyError(parsed.error), this.#transport.secret),
            context,
          );
        }
        return parsed.data;
      },
    );
  }

  async #readJson(
    response: WfmResponse,
    context: WfmErrorContext,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const { body } = response;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > MAX_JSON_BYTES)
          throw new WfmBodyTooLargeError(`longer than ${MAX_JSON_BYTES} bytes once decoded`, context);
        chunks.push(chunk);
      }
    } catch (error) {
      throw this.#transport.mapError(error, context, 'body', signal);
    } finally {
      body.release();
    }
    const text = Buffer.concat(chunks, size).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new WfmBodyInvalidError(
        excerptOf((error as Error).message, this.#transport.secret),
        context,
        body.received(),
      );
    }
  }
}

function checkInput<S extends z.ZodType>(schema: S, body: unknown, call: string): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new InvalidRequestError(`${call}: invalid body: ${prettifyError(parsed.error)}`);
  return parsed.data;
}

function checkInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new InvalidRequestError(`${what} must be an integer, got ${value}`);
}

function categoryPath(id: string): string {
  if (id === '') throw new InvalidRequestError('a category id must not be empty');
  return `${CATEGORIES_PATH}/${encodeURIComponent(id)}`;
}

function divisionPath(id: number): string {
  checkInteger(id, 'a division id');
  return `${DIVISIONS_PATH}/${id}`;
}
