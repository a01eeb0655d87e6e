// One response body as its readers need it: decoded according to Content-Encoding while it
// streams (gzip, deflate or br through node:zlib, identity as is), counted on the wire and decoded
// (body-bytes.ts), timed by the request's ReadGuard, and able to say what arrived (type,
// encoding, first characters) when it turns out to be unreadable.
//
// Memory stays flat whatever the compression ratio: the decoder inflates only as fast as the
// reader takes its output (stream backpressure), so a small body that inflates to gigabytes is
// stopped by the reader's limits on decoded bytes (WFM_MAX_BODY_BYTES, WFM_MAX_ROW_BYTES) after
// about one chunk too many, not after inflating. A body in an encoding the client cannot decode
// fails with WFM_BODY_INVALID before any of it is parsed; a compressed stream that is cut
// (a truncated gzip member) is WFM_BODY_TRUNCATED, one that is corrupt WFM_BODY_INVALID — both
// retryable, and a report read resumes after its last row like after any other break.

import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, constants as zlibConstants } from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { BodyBytes } from './body-bytes.js';
import type { ReadGuard } from './read-guard.js';
import { StreamChunks } from './stream-chunks.js';
import {
  EXCERPT_CHARS,
  excerptOf,
  WfmBodyInvalidError,
  WfmBodyTruncatedError,
  type ReceivedBody,
  type WfmErrorContext,
} from './wfm-error.js';

/** What the client asks for when WFM_COMPRESSION is on, best first by ratio per CPU on a report. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

type RawBody = Dispatcher.ResponseData['body'];
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Output chunks of the decoder: 64 KiB is the scanner's batch, zlib's default (16 KiB) 4× the calls. */
const DECODED_CHUNK_BYTES = 64 * 1024;

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => createGunzip({ chunkSize: DECODED_CHUNK_BYTES }),
  'x-gzip': () => createGunzip({ chunkSize: DECODED_CHUNK_BYTES }),
  deflate: () => createInflate({ chunkSize: DECODED_CHUNK_BYTES }),
  br: () => createBrotliDecompress({ chunkSize: DECODED_CHUNK_BYTES }),
};

export interface ResponseBodyOptions {
  readonly guard: ReadGuard;
  /** This body's tally (the guard reads it too). */
  readonly bytes: BodyBytes;
  readonly context: WfmErrorContext;
  /** The bearer token, scrubbed from what received() quotes. */
  readonly secret: string;
}

export class ResponseBody {
  /** The Content-Encoding as sent, in lower case; 'identity' when absent. */
  readonly encoding: string;
  readonly #raw: RawBody;
  readonly #headers: Headers;
  readonly #guard: ReadGuard;
  /** Bytes received on the wire so far (compressed, when the body is) and decoded bytes handed out. */
  readonly bytes: BodyBytes;
  readonly #context: WfmErrorContext;
  readonly #secret: string;
  readonly #decoder: Transform | undefined;
  /** The decoded chunks, taken once the first is asked for (a body dumped unread is left alone). */
  #chunks: StreamChunks | undefined;
  readonly #headLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #released = false;

  constructor(raw: RawBody, headers: Headers, options: ResponseBodyOptions) {
    this.#raw = raw;
    this.#headers = headers;
    this.#guard = options.guard;
    this.bytes = options.bytes;
    this.#context = options.context;
    this.#secret = options.secret;
    // Enough bytes that a token starting within the excerpt is whole in it (and so redacted),
    // even when every character takes four bytes.
    this.#headLimit = 4 * (EXCERPT_CHARS + Buffer.byteLength(options.secret));
    this.encoding =
      (headerValue(headers, 'content-encoding') ?? 'identity').trim().toLowerCase() || 'identity';
    const decoder = this.encoding === 'identity' ? undefined : DECODERS[this.encoding]?.();
    this.#decoder = decoder;
    if (decoder !== undefined) void this.#feed(decoder);
  }

  /** The decoded chunks: the decoder's, or the body's when it is not encoded (or cannot be decoded). */
  #decodedChunks(): StreamChunks {
    this.#chunks ??= new StreamChunks(this.#decoder ?? (this.#raw as unknown as Readable));
    return this.#chunks;
  }

  /**
   * The next decoded chunk, or undefined at the end. Throws what broke the read: undici's error
   * (for the caller to map), the ReadGuard's WfmTimeoutError, or a typed error for an encoding
   * that cannot be decoded, a cut or corrupt compressed stream.
   */
  async next(): Promise<Buffer | undefined> {
    if (this.encoding !== 'identity' && this.#decoder === undefined) throw await this.#undecodable();
    let result: IteratorResult<Buffer>;
    this.#guard.waiting();
    try {
      result = await this.#decodedChunks().next();
    } catch (error) {
      throw this.#decodeError(error) ?? error;
    } finally {
      this.#guard.waited();
    }
    if (result.done === true) return undefined;
    const chunk = result.value;
    if (this.#decoder === undefined) this.bytes.addWire(chunk.length);
    this.bytes.addDecoded(chunk.length);
    this.#keepHead(chunk);
    return chunk;
  }

  /** The decoded chunks, for readers that need nothing between them (see next()). */
  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer, void, undefined> {
    for (let chunk = await this.next(); chunk !== undefined; chunk = await this.next()) yield chunk;
  }

  /** What arrived, quoted safely: for an error about a body the client cannot read. */
  received(): ReceivedBody {
    const quote = (value: string | undefined): string =>
      value === undefined ? '(none)' : excerptOf(value, this.#secret);
    return {
      contentType: quote(headerValue(this.#headers, 'content-type')),
      contentEncoding: quote(headerValue(this.#headers, 'content-encoding')),
      head: excerptOf(Buffer.concat(this.#head).toString('utf8'), this.#secret),
    };
  }

  /**
   * Frees the body: a no-op for the stream when it was read to the end, otherwise destroyed, which
   * closes its connection. Ends the guard's timers either way. undici reports a body destroyed
   * before its end as an 'error' event (RequestAbortedError); nobody listens any more, so that
   * event is swallowed here rather than crashing the process as an uncaught exception.
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#guard.dispose();
    for (const stream of [this.#decoder, this.#raw]) {
      if (stream === undefined || stream.destroyed) continue;
      stream.on('error', ignore);
      stream.destroy();
    }
  }

  /** Reads the first bytes of a body nobody reads on (an error answer), quoted, and releases it. */
  async excerpt(): Promise<string> {
    if (this.encoding !== 'identity' && this.#decoder === undefined) {
      this.release(); // nothing readable to quote; the status is the error
      return '';
    }
    try {
      while (this.#headBytes < this.#headLimit && (await this.next()) !== undefined);
    } catch {
      // An excerpt is best effort: what arrived so far is quoted.
    } finally {
      this.release();
    }
    return this.received().head;
  }

  /** Reads a small body to its end and drops it, keeping the connection for the next request. */
  async dump(): Promise<void> {
    try {
      this.#chunks?.detach();
      await this.#raw.dump();
    } finally {
      this.release();
    }
  }

  /**
   * Writes the wire bytes into the decoder as the decoder takes them. Not raw.pipe(decoder): piped
   * from undici's body, the decoder got many small writes and, under a reader busy parsing, left
   * gigabytes of short-lived buffers for the collector (docs/performance.md). The wire's chunks are
   * read as the body's own iterator reads them, joined (compressed, they are a fraction of the
   * decoded bytes): taken one at a time (stream-chunks.ts), a 95 MB gzip report kept ~300 MB of
   * buffers alive (report-reader.int.test.ts's flat-memory test). An error of the body (a reset, the
   * guard's abort) is passed on to the decoder, where the reader sees it.
   */
  async #feed(decoder: Transform): Promise<void> {
    try {
      for await (const chunk of this.#raw as AsyncIterable<Buffer>) {
        if (decoder.destroyed) return; // released, or the data was corrupt
        this.bytes.addWire(chunk.length);
        if (!decoder.write(chunk) && !decoder.destroyed) await drainedOrClosed(decoder);
      }
      if (!decoder.destroyed) decoder.end();
    } catch (error) {
      decoder.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Keeps a copy of the body's first bytes, for received(). */
  #keepHead(chunk: Buffer): void {
    if (this.#headBytes >= this.#headLimit) return;
    const part = Buffer.from(chunk.subarray(0, this.#headLimit - this.#headBytes));
    this.#head.push(part);
    this.#headBytes += part.length;
  }

  /** An encoding we did not ask for and cannot decode: quote its first bytes as they are. */
  async #undecodable(): Promise<WfmBodyInvalidError> {
    try {
      while (this.#headBytes < this.#headLimit) {
        const next = await this.#decodedChunks().next();
        if (next.done === true) break;
        this.bytes.addWire(next.value.length);
        this.#keepHead(next.value);
      }
    } catch {
      // What arrived so far is enough to say what it is.
    }
    return new WfmBodyInvalidError(
      `Content-Encoding "${excerptOf(this.encoding, this.#secret)}" cannot be decoded (asked for ${ACCEPT_ENCODING})`,
      this.#context,
      this.received(),
    );
  }

  /** A typed error for a decoder failure; undefined for anything else (undici's, the guard's). */
  #decodeError(error: unknown): Error | undefined {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string' || !code.startsWith('Z_')) return undefined;
    const context = { ...this.#context, cause: error, extra: { wireBytes: this.bytes.wireBytes } };
    const what = `the ${this.encoding} stream`;
    if (code === 'Z_BUF_ERROR' || (error as { errno?: unknown }).errno === zlibConstants.Z_BUF_ERROR) {
      return new WfmBodyTruncatedError(
        `${what} ended before its end (after ${this.bytes.wireBytes} bytes)`,
        context,
      );
    }
    return new WfmBodyInvalidError(
      `${what} is corrupt (${code}: ${excerptOf((error as Error).message, this.#secret)})`,
      context,
      this.received(),
    );
  }
}

function ignore(): void {}

function drainedOrClosed(stream: Transform): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** One header value (first of a list), names in lower case as undici gives them. */
export function headerValue(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
