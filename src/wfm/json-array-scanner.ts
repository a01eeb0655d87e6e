// Reads one JSON array from a byte stream in bounded memory: finds the boundaries of the top-level
// elements as bytes arrive and hands batches of complete elements to V8's JSON.parse.
//
// Why not a streaming JSON library: a 1M-row report (~900 MB) is longer than V8's maximum string
// length, so the body must be cut up, but the fastest maintained streaming parser we tried
// (stream-json) reads far below the ingest target (docs/performance.md).
// The real parsing is still done by a maintained, hardened parser — V8's JSON.parse — and this
// module only decides where to cut. Cuts fall after a complete top-level element, never inside
// a multi-byte UTF-8 character, so every batch is decoded from complete bytes.
//
// Two ways to find a cut, because scanning bytes in JavaScript costs about as much as JSON.parse:
// - fast: once about `batchBytes` are waiting, guess that the last `}` of the newest chunk ends a
//   row and parse `[` + bytes up to it + `]`; in a chunk longer than `maxBatchBytes`, the last `}`
//   within that many bytes, and so on through the chunk. If the guess was wrong (the `}` closes a
//   nested object or sits in a string), that text is not valid JSON — the same bytes tokenize the
//   same way, so the parse ends inside an open string or container — and nothing is lost but the
//   attempt. Rows of the report are flat objects, so the guess nearly always holds.
// - scan: a byte scanner that tracks strings (with `\` escapes; string bodies are skipped with
//   indexOf), nesting depth and commas at depth 1, used after a failed guess (and for a while
//   after, see #fastPause), for elements that are not objects, and to measure rows against
//   maxRowBytes when a guess would cover more than maxRowBytes.
// Either way every byte between the outer brackets goes through JSON.parse, and a batch that
// parses is a valid list of elements, so batches joined by commas are valid too; the scanner
// itself checks only what JSON.parse cannot see across batches: the opening `[`, the commas
// between batches, no empty element, the closing `]`, nothing but whitespace after it. So it
// accepts exactly the bodies `JSON.parse(wholeBody)` accepts (property-tested against it).
//
// Limits against a hostile or broken upstream: a body longer than maxBodyBytes and an element
// longer than maxRowBytes are rejected as soon as they are seen, so memory stays at about one
// batch plus one element (plus a chunk) whatever the body.
//
// Each batch of rows carries its texts (array-element-texts.ts): the string JSON.parse got, kept
// until the batch is validated, so that a row can be shown and checked as received.

import { isJsonWhitespace } from '../domain/json-text.js';
import { concatRawRows, withRowTexts, type RawRows } from '../domain/raw-rows.js';
import { arrayElementTexts } from './array-element-texts.js';
import { JsonArrayScanError } from './json-array-scan-error.js';

export interface JsonArrayScannerOptions {
  /** Largest body accepted, in bytes. */
  readonly maxBodyBytes: number;
  /** Largest single element accepted, in bytes (with surrounding whitespace, without commas). */
  readonly maxRowBytes: number;
  /** Complete elements are parsed once about this many bytes of them are waiting (default 64 KiB). */
  readonly batchBytes?: number;
  /** A batch covers about this many bytes at most (default 256 KiB, never less than batchBytes). */
  readonly maxBatchBytes?: number;
}

/**
 * Smaller batches keep the parsed rows and their text young: fewer survive into the old
 * generation, which is what grows the heap (sizes compared in docs/performance.md).
 */
export const DEFAULT_BATCH_BYTES = 64 * 1024;

/**
 * Batches follow the rows, not the chunks (a megabyte and more, uncompressed from a fast upstream):
 * a render thread holds, parses and renders a batch at once (docs/performance.md).
 */
export const DEFAULT_MAX_BATCH_BYTES = 256 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const BEFORE_ARRAY = 0;
const IN_ARRAY = 1;
const AFTER_ARRAY = 2;

/** #scanPart stopped after a comma: a batch is full. */
const BATCH_FULL = -2;

/** After a wrong guess, this many chunks at most are scanned before guessing again. */
const MAX_FAST_PAUSE = 64;

function skipWhitespace(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length && isJsonWhitespace(bytes[i]!)) i++;
  return i;
}

const NO_ROWS: RawRows = Object.freeze([]);

export class JsonArrayScanner {
  readonly #maxBodyBytes: number;
  readonly #maxRowBytes: number;
  readonly #batchBytes: number;
  readonly #maxBatchBytes: number;
  #text: Buffer = Buffer.alloc(0);

  #phase = BEFORE_ARRAY;
  #bytes = 0;
  #rows = 0;
  #ended = false;
  /** A guessed cut ended a row at the very end of a chunk: the next byte must be `,` or `]`. */
  #needComma = false;

  // Bytes not yet parsed. #pendingStart is always a boundary: right after `[` or a depth-1 comma.
  #pending: Uint8Array[] = [];
  #pendingStart = 0;
  #pendingEnd = 0;

  // Byte-scanner state, valid for the bytes #pendingStart..#scannedTo.
  #scannedTo = 0;
  #depth = 1;
  #inString = false;
  /** The previous part ended inside a string with an odd run of backslashes. */
  #escapePending = false;
  /** The current top-level element has a non-whitespace byte. */
  #sawValue = false;
  #elementStart = 0;
  /** Offset of the last depth-1 comma after #pendingStart, or -1. */
  #lastComma = -1;

  /** Chunks left to scan before the next guess; grows after each wrong guess. */
  #fastPause = 0;
  #fastPauseNext = 1;

  constructor(options: JsonArrayScannerOptions) {
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#maxRowBytes = options.maxRowBytes;
    this.#batchBytes = Math.max(1, options.batchBytes ?? DEFAULT_BATCH_BYTES);
    this.#maxBatchBytes = Math.max(this.#batchBytes, options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
  }

  /** Bytes pushed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Elements parsed so far. */
  get rows(): number {
    return this.#rows;
  }

  /** True once the closing `]` has been seen. */
  get complete(): boolean {
    return this.#phase === AFTER_ARRAY;
  }

  /** Feeds the next chunk; returns the elements completed by it (often none: a shared empty array). */
  push(chunk: Uint8Array): RawRows {
    return [...this.pushBatches(chunk)].reduce(concatRawRows, NO_ROWS);
  }

  /**
   * Feeds the next chunk; returns the batches of elements completed by it, in order (often none),
   * each of about maxBatchBytes at most. The batches a guess cuts are parsed one by one as they are
   * taken, so that only one is held at a time: take them all before the next push.
   */
  pushBatches(chunk: Uint8Array): Iterable<RawRows> {
    if (this.#ended) throw new Error('JsonArrayScanner.push after end()');
    const base = this.#bytes;
    const n = chunk.length;
    if (n === 0) return [];
    if (base + n > this.#maxBodyBytes) {
      throw new JsonArrayScanError(
        'body-too-large',
        this.#maxBodyBytes,
        `the body is longer than ${this.#maxBodyBytes} bytes`,
      );
    }
    this.#bytes = base + n;

    let i = 0;
    if (this.#phase === BEFORE_ARRAY) {
      i = skipWhitespace(chunk, 0);
      if (i === n) return [];
      if (chunk[i] !== OPEN_BRACKET) {
        throw new JsonArrayScanError(
          'not-an-array',
          base + i,
          'the body is not a JSON array (no leading "[")',
        );
      }
      i++;
      this.#phase = IN_ARRAY;
      this.#startBatchAt(base + i);
    }
    if (this.#phase === AFTER_ARRAY) {
      this.#checkTrailing(chunk, i, base);
      return [];
    }
    if (this.#needComma) {
      i = skipWhitespace(chunk, i);
      if (i === n) return [];
      this.#needComma = false;
      const b = chunk[i]!;
      if (b === CLOSE_BRACKET) {
        this.#phase = AFTER_ARRAY;
        this.#checkTrailing(chunk, i + 1, base);
        return [];
      }
      if (b !== COMMA)
        throw new JsonArrayScanError('malformed', base + i, `expected "," or "]" at byte ${base + i}`);
      i++;
      this.#startBatchAt(base + i);
    }
    if (i === n) return [];
    this.#pending.push(i === 0 ? chunk : chunk.subarray(i));
    this.#pendingEnd = base + n;

    if (this.#fastPause > 0) {
      this.#fastPause--;
      return this.#scanAndFlush();
    }
    return this.#guessThrough(chunk, i, base);
  }

  /**
   * Guess after guess through the chunk (its bytes from `i` on), each batch ending at most about
   * maxBatchBytes on; after a wrong guess, the byte scan.
   */
  *#guessThrough(chunk: Uint8Array, i: number, base: number): Generator<RawRows, void, undefined> {
    while (this.#phase === IN_ARRAY && !this.#needComma) {
      const waiting = this.#pendingEnd - this.#pendingStart;
      if (waiting < this.#batchBytes && waiting <= this.#maxRowBytes) return;
      const rows = this.#tryFast(chunk, Math.max(i, this.#pendingStart - base), base);
      if (rows === undefined) {
        yield* this.#scanAndFlush();
        return;
      }
      yield* rows;
    }
  }

  /** Declares the body finished; returns the last elements, or throws when the array is not closed. */
  end(): RawRows {
    this.#ended = true;
    let rows = NO_ROWS;
    if (this.#phase === IN_ARRAY && !this.#needComma)
      rows = this.#scanAndFlush().reduce(concatRawRows, NO_ROWS);
    if (this.#phase !== AFTER_ARRAY) {
      const what =
        this.#phase === BEFORE_ARRAY ? 'the body is empty' : 'the body ends before the closing "]"';
      throw new JsonArrayScanError('truncated', this.#bytes, `${what} (after ${this.#bytes} bytes)`);
    }
    return rows;
  }

  /** Pending bytes now start at `offset`, a boundary; the byte scanner starts afresh there. */
  #startBatchAt(offset: number): void {
    this.#pending = [];
    this.#pendingStart = offset;
    this.#pendingEnd = offset;
    this.#scannedTo = offset;
    this.#depth = 1;
    this.#inString = false;
    this.#escapePending = false;
    this.#sawValue = false;
    this.#elementStart = offset;
    this.#lastComma = -1;
  }

  /**
   * The guess: the last `}` of this chunk (from `from` on) within maxBatchBytes of the batch's
   * start ends a row — or, when there is none, the chunk's last `}`. Undefined when it does not.
   */
  #tryFast(chunk: Uint8Array, from: number, base: number): RawRows[] | undefined {
    const bound = this.#pendingStart + this.#maxBatchBytes - base;
    let brace = bound > from && bound < chunk.length ? chunk.lastIndexOf(CLOSE_BRACE, bound - 1) : -1;
    if (brace < from) brace = chunk.lastIndexOf(CLOSE_BRACE);
    if (brace < from) return undefined;
    const cut = base + brace + 1;
    // Rows inside a guessed batch are not measured: only guess when the batch itself fits a row.
    if (cut - this.#pendingStart > this.#maxRowBytes) return undefined;
    let rows: RawRows;
    try {
      rows = this.#parse(cut);
    } catch {
      this.#fastPause = this.#fastPauseNext;
      this.#fastPauseNext = Math.min(MAX_FAST_PAUSE, this.#fastPauseNext * 2);
      return undefined;
    }
    this.#fastPauseNext = 1;
    // After a complete row at depth 1: whitespace, then `,` or `]`.
    const i = skipWhitespace(chunk, brace + 1);
    if (i === chunk.length) {
      this.#startBatchAt(this.#pendingEnd);
      this.#needComma = true;
    } else if (chunk[i] === COMMA) {
      this.#startBatchAt(base + i + 1);
      if (i + 1 < chunk.length) {
        this.#pending.push(chunk.subarray(i + 1));
        this.#pendingEnd = base + chunk.length;
      }
    } else if (chunk[i] === CLOSE_BRACKET) {
      this.#startBatchAt(base + i);
      this.#phase = AFTER_ARRAY;
      this.#checkTrailing(chunk, i + 1, base);
    } else {
      throw new JsonArrayScanError('malformed', base + i, `expected "," or "]" at byte ${base + i}`);
    }
    if (this.#pendingEnd - this.#pendingStart > this.#maxRowBytes) return [rows, ...this.#scanAndFlush()];
    return [rows];
  }

  /**
   * Scans the pending bytes not scanned yet; parses everything up to the closing `]` when it is
   * there, else up to the last depth-1 comma once a batch is due — and on the way, a batch at
   * each depth-1 comma past maxBatchBytes, so that batches stay bounded here too; checks element
   * sizes. Empty batches are left out.
   */
  #scanAndFlush(): RawRows[] {
    const batches: RawRows[] = [];
    for (let full = true; full;) {
      full = false;
      let partStart = this.#pendingStart;
      for (const part of this.#pending) {
        const partEnd = partStart + part.length;
        if (partEnd > this.#scannedTo) {
          const close = this.#scanPart(part, Math.max(0, this.#scannedTo - partStart), partStart);
          if (close >= 0) {
            const rows = this.#close(close);
            if (rows.length > 0) batches.push(rows);
            return batches;
          }
          if (close === BATCH_FULL) {
            full = true;
            break;
          }
          this.#scannedTo = partEnd;
        }
        partStart = partEnd;
      }
      if (full) batches.push(this.#flushThroughLastComma());
    }
    if (this.#pendingEnd - this.#elementStart > this.#maxRowBytes)
      throw this.#rowTooLarge(this.#elementStart);
    if (this.#lastComma >= 0 && this.#lastComma - this.#pendingStart >= this.#batchBytes)
      batches.push(this.#flushThroughLastComma());
    return batches;
  }

  /**
   * The byte scanner over part[from..]: updates the state; returns the offset of a closing `]` at
   * depth 1, BATCH_FULL after a depth-1 comma past maxBatchBytes (#scannedTo then says where it
   * stopped), or -1 at the end of the part. Throws on an empty element or an element longer than
   * maxRowBytes.
   */
  #scanPart(part: Uint8Array, from: number, partBase: number): number {
    let depth = this.#depth;
    let inString = this.#inString;
    let sawValue = this.#sawValue;
    let i = from;
    const n = part.length;
    if (this.#escapePending && i < n) {
      this.#escapePending = false;
      i++;
    }
    let close = -1;
    while (i < n) {
      if (inString) {
        const quote = part.indexOf(QUOTE, i);
        const stop = quote < 0 ? n : quote;
        // A quote is escaped when an odd run of backslashes precedes it; the run cannot reach
        // back past `i` (the opening quote, or a byte already consumed as escaped).
        let run = 0;
        for (let k = stop - 1; k >= i && part[k] === BACKSLASH; k--) run++;
        if (quote < 0) {
          this.#escapePending = (run & 1) === 1;
          i = n;
          break;
        }
        if ((run & 1) === 0) inString = false;
        i = quote + 1;
        continue;
      }
      const b = part[i]!;
      if (depth > 1) {
        if (b === QUOTE) inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
        else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) depth--;
      } else if (b === COMMA) {
        const at = partBase + i;
        if (!sawValue) throw new JsonArrayScanError('malformed', at, `an empty array element at byte ${at}`);
        if (at - this.#elementStart > this.#maxRowBytes) throw this.#rowTooLarge(this.#elementStart);
        this.#elementStart = at + 1;
        this.#lastComma = at;
        sawValue = false;
        if (at - this.#pendingStart >= this.#maxBatchBytes) {
          this.#scannedTo = at + 1;
          close = BATCH_FULL;
          break;
        }
      } else if (b === CLOSE_BRACKET) {
        close = partBase + i;
        break;
      } else if (b === QUOTE) {
        inString = true;
        sawValue = true;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        depth++;
        sawValue = true;
      } else if (!isJsonWhitespace(b)) {
        // A number or literal, or a stray `}` that JSON.parse will reject with the batch.
        sawValue = true;
      }
      i++;
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#sawValue = sawValue;
    return close;
  }

  /** The scanner met the closing `]` at `at`: parse the rest, then only whitespace may follow. */
  #close(at: number): RawRows {
    if (!this.#sawValue && (this.#lastComma >= 0 || this.#rows > 0)) {
      throw new JsonArrayScanError('malformed', at, `a trailing comma before "]" at byte ${at}`);
    }
    if (this.#sawValue && at - this.#elementStart > this.#maxRowBytes)
      throw this.#rowTooLarge(this.#elementStart);
    const rows = this.#sawValue ? this.#parse(at) : NO_ROWS;
    let partStart = this.#pendingStart;
    for (const part of this.#pending) {
      const partEnd = partStart + part.length;
      if (partEnd > at) this.#checkTrailing(part, Math.max(0, at + 1 - partStart), partStart);
      partStart = partEnd;
    }
    this.#startBatchAt(this.#pendingEnd);
    this.#phase = AFTER_ARRAY;
    return rows;
  }

  #checkTrailing(bytes: Uint8Array, from: number, base: number): void {
    const i = skipWhitespace(bytes, from);
    if (i < bytes.length) {
      throw new JsonArrayScanError(
        'trailing-data',
        base + i,
        `data after the closing "]" at byte ${base + i}`,
      );
    }
  }

  /** Parses the pending bytes up to the last depth-1 comma and keeps the rest, still scanned. */
  #flushThroughLastComma(): RawRows {
    const cut = this.#lastComma;
    const rows = this.#parse(cut);
    const kept: Uint8Array[] = [];
    let partStart = this.#pendingStart;
    for (const part of this.#pending) {
      const partEnd = partStart + part.length;
      if (partEnd > cut + 1) kept.push(partStart > cut ? part : part.subarray(cut + 1 - partStart));
      partStart = partEnd;
    }
    this.#pending = kept;
    this.#pendingStart = cut + 1;
    this.#lastComma = -1;
    return rows;
  }

  /** JSON.parse of `[` + pending bytes up to `end` + `]`, with the rows' texts; counts the rows. */
  #parse(end: number): RawRows {
    const length = end - this.#pendingStart;
    // One buffer for every batch: the text is decoded out of it at once, and a fresh one per batch
    // would be ~1 GB of short-lived memory outside the heap at 1M rows, which the collector frees late.
    // (Not doubled: a batch is batchBytes to maxBatchBytes, now and then a whole large chunk.)
    if (this.#text.length < length + 2) this.#text = Buffer.allocUnsafe(length + 2);
    const text = this.#text;
    text[0] = OPEN_BRACKET;
    let at = 1;
    for (const part of this.#pending) {
      const take = Math.min(part.length, length + 1 - at);
      if (take <= 0) break;
      text.set(take === part.length ? part : part.subarray(0, take), at);
      at += take;
    }
    text[at] = CLOSE_BRACKET;
    const source = text.toString('utf8', 0, at + 1);
    let rows: unknown[];
    try {
      rows = JSON.parse(source) as unknown[];
    } catch (error) {
      throw new JsonArrayScanError(
        'malformed',
        this.#pendingStart,
        `malformed JSON in the bytes ${this.#pendingStart}..${end}: ${(error as Error).message}`,
        error,
      );
    }
    this.#rows += rows.length;
    return withRowTexts(rows, arrayElementTexts(source, text.subarray(0, at + 1)));
  }

  #rowTooLarge(start: number): JsonArrayScanError {
    return new JsonArrayScanError(
      'row-too-large',
      start,
      `the array element starting at byte ${start} is longer than ${this.#maxRowBytes} bytes`,
    );
  }
}
