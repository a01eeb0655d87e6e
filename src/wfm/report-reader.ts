// Reads the finished-shifts report (GET /v1/connector/rpc/wfm_timers) as batches of raw parsed rows,
// in bounded memory, completely or not at all: paging, completeness checks and resuming a read
// that broke midway. Rows are not validated here (the pipeline does that, row by row, and keeps
// the invalid ones for the rejected file).
//
// Paging (WFM_PAGING): `none` is one streamed request; `keyset` asks for `id=gt.<last>&limit=N`
// until a short page; `offset` for `offset=K&limit=N` until a short page or a 416. Every request
// says `order=id.asc`.
//
// Completeness: with Prefer: count=exact the upstream states in Content-Range how many rows match
// the request (`0-999/5000`). Each answer must then hold min(limit, total - offset) rows; fewer is
// WFM_INCOMPLETE (retryable, and resumed like a break). This is what catches a server-side row cap
// (like PostgREST's max-rows), which otherwise looks like a short, final page. More rows than
// announced are accepted: an upstream that sends a row twice is dedup's business, not a cut.
// Without a total (WFM_COUNT_EXACT=false, or an upstream that does not count) a cap goes unseen.
//
// Resuming: a body can break after rows were handed downstream (reset, truncation, a stall past the
// body timeout, a short count). Starting over would repeat those rows, giving up would lose the
// export, so the next attempt resumes where the caller stands:
// - by id (none, keyset): we ask for `order=id.asc` and remember the id of the last row handed
//   out; the next request adds `id=gt.<that id>`. This is exact only if ids arrived in ascending
//   order — if they went down (an upstream that ignores `order`), rows before the break may come
//   after it in a new answer, and `id=gt.` would lose them: then we fail with the retryable
//   WFM_RESUME_UNSAFE instead (the job retries from scratch). Equal neighbours (a row sent twice)
//   are harmless: everything up to that id has been seen, and dedup drops the copy downstream.
//   A row whose id cannot be read (an invalid row) gives no position; resume-position.ts says how
//   such rows are held back so the position stays exact.
//   An answer to `id=gt.N` that contains an id <= N shows the filter is ignored: resuming or
//   keyset paging would loop, so that fails too.
// - by count (offset): the page is asked again from offset K + rows already handed out.
// A resume is one more attempt of the same retry budget, which resets when rows were handed out.
//
// Bodies arrive decoded (gzip, deflate, br; see response-body.ts), so the scanner's limits apply to
// the decoded bytes, and a cut compressed stream is a break like any other. Each request has its
// own deadline and minimum rate (read-guard.ts): a body that trickles fails the attempt with
// WFM_TIMEOUT, resumed like a break, and the retry budget bounds an upstream that never gets on.

import type { ConnectedWfmConfig } from '../config/wfm-config.js';
import type { UtcWindow } from '../domain/period.js';
import { RawRowsBuilder, type RawRows } from '../domain/raw-rows.js';
import { BodyBytes } from './body-bytes.js';
import { expectedRows, parseContentRange } from './content-range.js';
import { JsonArrayScanError } from './json-array-scan-error.js';
import { JsonArrayScanner } from './json-array-scanner.js';
import { RetryBudget, type OnRetry, type RetryClock } from './retry.js';
import {
  WfmBodyInvalidError,
  WfmBodyTooLargeError,
  WfmBodyTruncatedError,
  WfmError,
  WfmIncompleteError,
  WfmPagingUnsupportedError,
  WfmResumeUnsafeError,
  excerptOf,
  type WfmErrorContext,
} from './wfm-error.js';
import { reportQuery, windowQuery, type ReportCursor } from './wfm-query.js';
import { idsOf, ResumePositionKeeper, type Position, type RowRange } from './resume-position.js';
import { ParsedCuts, type CutParser } from './parsed-cuts.js';
import { parseCut } from './scanned-cut.js';
import { headerValue, type ResponseBody } from './response-body.js';
import type { WfmResponse, WfmTransport } from './wfm-transport.js';
import { REPORT_PATH } from 'wfm-contract/finished-shift';

export interface ReadProgress {
  /** Rows handed out so far. */
  readonly rows: number;
  /**
   * Body bytes received on the wire so far, compressed if the upstream compressed (all attempts and
   * pages, error answers included).
   */
  readonly wireBytes: number;
  /** The same bodies' bytes once decoded: the JSON the scanner read. Equal to wireBytes for identity. */
  readonly decodedBytes: number;
  /** HTTP requests sent. */
  readonly requests: number;
  /** Retries and resumes. */
  readonly retries: number;
}

export interface ReadShiftsOptions {
  /** The start_time window; absent: no filter (the whole report). */
  readonly window?: UtcWindow | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * With each batch, just before it is handed out (counts include it), and once more when the read
   * ends, however it ends (the final byte counts).
   */
  readonly onProgress?: (progress: ReadProgress) => void;
  /** For every decoded body chunk, before parsing: the bench's download ceiling. */
  readonly onBytes?: (bytes: number) => void;
}

export interface ReportReaderDeps {
  readonly transport: WfmTransport;
  readonly config: ConnectedWfmConfig;
  readonly clock: RetryClock;
  readonly onRetry?: OnRetry;
  /** Bytes of complete rows parsed at once (scanner batch). */
  readonly batchBytes?: number;
}

interface Counters {
  rows: number;
  /** Every body of the read, all attempts and pages. */
  readonly bytes: BodyBytes;
  requests: number;
  retries: number;
}

function progressOf({ rows, bytes, requests, retries }: Counters): ReadProgress {
  return { rows, wireBytes: bytes.wireBytes, decodedBytes: bytes.decodedBytes, requests, retries };
}

/** One read of the report: what each of its requests shares. */
interface Read<B> {
  readonly deps: ReportReaderDeps;
  readonly options: ReadShiftsOptions;
  readonly parser: CutParser<B>;
  readonly counters: Counters;
  readonly position: Position;
  readonly budget: RetryBudget;
  readonly window: string;
}

interface AnswerResult {
  readonly received: number;
  /** 416 in offset paging: nothing at this offset. */
  readonly outOfRange: boolean;
}

/**
 * The report as batches of raw rows, each with its rows' texts as received, parsed on this thread;
 * see the module comment for paging, completeness and resuming.
 */
export async function* readReport(
  deps: ReportReaderDeps,
  options: ReadShiftsOptions = {},
  parser: CutParser<RawRows> = PARSE_HERE,
): AsyncGenerator<RawRows, void, undefined> {
  for await (const ranges of readParsedReport(deps, options, parser)) {
    const [only] = ranges;
    // Nearly always one whole batch: handed out as parsed, not copied into a joined one.
    if (ranges.length === 1 && only !== undefined && only.from === 0 && only.to === only.batch.length) {
      yield only.batch;
      continue;
    }
    const joined = new RawRowsBuilder();
    for (const { batch, from, to } of ranges) joined.append(batch, from, to);
    yield joined.take();
  }
}

/** The parser on this thread: JSON.parse with the rows' texts, each cut before the next is taken. */
export const PARSE_HERE: CutParser<RawRows> = {
  depth: 1,
  parse(cut) {
    const rows = parseCut(cut);
    return { batch: rows, ids: idsOf(rows) };
  },
};

/**
 * The report as ranges of parsed batches, each cut of the body parsed by `parser` (on this thread
 * or another): the resume position comes from the ids the parses return, in report order. Yields
 * the ranges that go out together, in order.
 */
export async function* readParsedReport<B>(
  deps: ReportReaderDeps,
  options: ReadShiftsOptions,
  parser: CutParser<B>,
): AsyncGenerator<readonly RowRange<B>[], void, undefined> {
  const { config } = deps;
  const counters: Counters = { rows: 0, bytes: new BodyBytes(), requests: 0, retries: 0 };
  const position: Position = { lastId: undefined, ascending: true, blind: false, pageStart: 0, pageDone: 0 };
  const budget = new RetryBudget({
    policy: config.retry,
    method: 'GET',
    clock: deps.clock,
    onRetry: (event) => {
      counters.retries += 1;
      deps.onRetry?.(event);
    },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const window = windowQuery(config.windowQuery, options.window);
  const read: Read<B> = { deps, options, parser, counters, position, budget, window };

  try {
    yield* readAnswers(read);
  } finally {
    options.onProgress?.(progressOf(counters));
  }
}

/** The requests of one read, until the report is complete or a failure is final. */
async function* readAnswers<B>(read: Read<B>): AsyncGenerator<readonly RowRange<B>[], void, undefined> {
  const { deps, counters, position, budget } = read;
  const { config } = deps;
  const mode = config.paging;
  for (;;) {
    const attempt = budget.beginAttempt();
    const cursor: ReportCursor =
      mode === 'offset'
        ? { offset: position.pageStart + position.pageDone, limit: config.pageSize - position.pageDone }
        : {
            ...(position.lastId === undefined ? {} : { afterId: position.lastId }),
            ...(mode === 'keyset' ? { limit: config.pageSize } : {}),
          };
    let result: AnswerResult;
    try {
      result = yield* readAnswer(read, cursor, attempt);
    } catch (error) {
      if (error instanceof WfmError && error.retryable && counters.rows > 0 && mode !== 'offset') {
        const unsafe = !position.ascending
          ? 'ids arrived out of order'
          : position.blind
            ? 'too many rows without a readable id'
            : undefined;
        if (unsafe !== undefined) {
          throw new WfmResumeUnsafeError(`${unsafe}; cause: ${error.code}`, {
            method: 'GET',
            path: REPORT_PATH,
            attempts: attempt,
            cause: error,
          });
        }
      }
      await budget.beforeRetry(error);
      continue;
    }
    if (mode === 'none' || result.outOfRange) return;
    const limit = cursor.limit ?? config.pageSize;
    if (result.received < limit) return;
    if (mode === 'offset') {
      position.pageStart += config.pageSize;
      position.pageDone = 0;
    }
  }
}

/** One request: yields its rows, checks its completeness; throws a typed error when it breaks. */
async function* readAnswer<B>(
  read: Read<B>,
  cursor: ReportCursor,
  attempt: number,
): AsyncGenerator<readonly RowRange<B>[], AnswerResult, undefined> {
  const { deps, options, counters, position } = read;
  const { config, transport } = deps;
  const context: WfmErrorContext = { method: 'GET', path: REPORT_PATH, attempts: attempt };
  counters.requests += 1;
  const response: WfmResponse = await transport.send({
    method: 'GET',
    path: REPORT_PATH,
    query: reportQuery(read.window, cursor),
    headers: config.countExact ? { prefer: 'count=exact' } : {},
    attempt,
    bytes: counters.bytes,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(config.paging === 'offset' ? { acceptStatuses: new Set([416]) } : {}),
  });
  const body = response.body;
  try {
    if (response.status === 416) {
      await body.dump().catch(() => undefined); // a small error body: read it, keep the connection
      return { received: 0, outOfRange: true };
    }
    const range = parseContentRange(headerValue(response.headers, 'content-range'));
    const scanner = new JsonArrayScanner({
      maxBodyBytes: config.maxBodyBytes,
      maxRowBytes: config.maxRowBytes,
      ...(deps.batchBytes === undefined ? {} : { batchBytes: deps.batchBytes }),
    });
    const answer = new ParsedCuts(read.parser, scanner, (step) => scan(step, context, deps, body));
    const keeper = new ResumePositionKeeper<B>(config.paging, cursor, position, context);
    let received = 0;
    const handOutParsed = async function* (all: boolean) {
      for (let parsed = await answer.next(all); parsed !== undefined; parsed = await answer.next(all)) {
        received += parsed.ids.length;
        const ranges = keeper.accept(parsed.ids, parsed.batch);
        // Adjacent copies of one id do not count: an upstream may send a row twice within its limit.
        if (cursor.limit !== undefined && received - keeper.repeats > cursor.limit) {
          throw new WfmPagingUnsupportedError(
            `more than limit=${cursor.limit} rows in one answer (limit ignored)`,
            context,
          );
        }
        if (ranges.length > 0) yield* handOut(ranges, read);
      }
    };
    for (let done = false; !done;) {
      let chunk: Buffer | undefined;
      try {
        chunk = await body.next();
      } catch (error) {
        // The cuts before the break are whole rows: they go out, and the position follows them.
        yield* handOutParsed(true);
        throw transport.mapError(
          error,
          { ...context, extra: { receivedRows: received } },
          'body',
          options.signal,
        );
      }
      if (chunk === undefined) {
        done = true;
        answer.add(scan(() => scanner.endCuts(), context, deps, body));
      } else {
        const bytes = chunk;
        options.onBytes?.(bytes.length);
        answer.add(scan(() => scanner.pushCuts(bytes), context, deps, body));
      }
      yield* handOutParsed(done);
    }
    const expected = expectedRows(range, cursor.offset ?? 0, cursor.limit);
    // Fewer rows than announced is a cut; more is not (a row sent twice is dedup's business).
    if (expected !== undefined && received < expected)
      throw new WfmIncompleteError(expected, received, context);
    const rest = keeper.finish(received, cursor.limit);
    if (rest.length > 0) yield* handOut(rest, read);
    return { received, outOfRange: false };
  } finally {
    body.release();
  }
}

async function* handOut<B>(
  ranges: readonly RowRange<B>[],
  { counters, position, budget, options }: Read<B>,
): AsyncGenerator<readonly RowRange<B>[], void, undefined> {
  const rows = ranges.reduce((sum, { from, to }) => sum + to - from, 0);
  counters.rows += rows;
  position.pageDone += rows;
  budget.madeProgress();
  options.onProgress?.(progressOf(counters));
  yield ranges;
}

/**
 * Runs one scanner step, turning its errors into typed ones. The scanner's message can quote the
 * body (JSON.parse does), so it is scrubbed of the token, made one safe line (excerptOf) and not
 * kept as a cause.
 */
function scan<T>(step: () => T, context: WfmErrorContext, deps: ReportReaderDeps, body: ResponseBody): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof JsonArrayScanError)) throw error;
    const { config } = deps;
    const message = excerptOf(error.message, deps.transport.secret);
    const ctx = { ...context, extra: { byteOffset: error.offset } };
    switch (error.kind) {
      case 'truncated':
        throw new WfmBodyTruncatedError(message, ctx);
      case 'body-too-large':
        throw new WfmBodyTooLargeError(
          `longer than WFM_MAX_BODY_BYTES=${config.maxBodyBytes}${decodedNote(body)}`,
          ctx,
        );
      case 'row-too-large':
        throw new WfmBodyTooLargeError(
          `a row longer than WFM_MAX_ROW_BYTES=${config.maxRowBytes} at byte ${error.offset}${decodedNote(body)}`,
          ctx,
        );
      default:
        throw new WfmBodyInvalidError(message, ctx, body.received());
    }
  }
}

/** Limits count decoded bytes: say so when they differ from what came over the wire. */
function decodedNote(body: ResponseBody): string {
  return body.encoding === 'identity'
    ? ''
    : ` once decoded (${body.encoding}: ${body.bytes.wireBytes} bytes on the wire so far)`;
}

/**
 * The download ceiling for the bench: one request for the same report (no paging, no retry), the
 * body decoded as the reader would (so with WFM_COMPRESSION the gunzip is in the ceiling) and
 * discarded unparsed. Resolves with the decoded bytes and the bytes on the wire.
 */
export async function drainReport(
  deps: ReportReaderDeps,
  options: ReadShiftsOptions = {},
): Promise<{ readonly bytes: number; readonly wireBytes: number }> {
  const { config, transport } = deps;
  const context: WfmErrorContext = { method: 'GET', path: REPORT_PATH, attempts: 1 };
  const response = await transport.send({
    method: 'GET',
    path: REPORT_PATH,
    query: reportQuery(windowQuery(config.windowQuery, options.window), {}),
    attempt: 1,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const body = response.body;
  try {
    for await (const chunk of body) options.onBytes?.(chunk.length);
  } catch (error) {
    throw transport.mapError(error, context, 'body', options.signal);
  } finally {
    body.release();
  }
  return { bytes: body.bytes.decodedBytes, wireBytes: body.bytes.wireBytes };
}
