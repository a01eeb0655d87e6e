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
// - fast: once about `batchBytes` are waiting, guess that the last `}` of the newest chunk that a
//   comma follows ends a row (in a chunk longer than `maxBatchBytes`, the last such `}` within that
//   many bytes, and so on through the chunk). The cut is handed out as a guess: whoever parses it
//   (this thread or another) confirms it, or finds it is not valid JSON, which shows the guess was
//   wrong (the `}` closes a nested object or sits in a string: the same bytes tokenize the same
//   way, so the parse ends inside an open string or container). Then rewind() goes back to the
//   guessed cut's start, a true boundary, and scans the bytes kept since; nothing is lost but the
//   attempt. Rows of the report are flat objects, so the guess nearly always holds.
// - scan: a byte scanner that tracks strings (with `\` escapes; string bodies are skipped with
//   indexOf), nesting depth and commas at depth 1, used after a wrong guess (and for a while
//   after, see #fastPause), for elements that are not objects, for the closing `]`, and to measure
//   rows against maxRowBytes when a guess would cover more than maxRowBytes.
// Either way every byte between the outer brackets goes through JSON.parse, and a cut that
// parses is a valid list of elements, so cuts joined by commas are valid too; the scanner
// itself checks only what JSON.parse cannot see across cuts: the opening `[`, the commas
// between cuts, no empty element, the closing `]`, nothing but whitespace after it. So it
// accepts exactly the bodies `JSON.parse(wholeBody)` accepts (property-tested against it).
// What the scanner finds after a guess may itself be wrong until the guess is confirmed: an error
// it meets then is held back, and thrown by confirm() once every guess before it held.
//
// Limits against a hostile or broken upstream: a body longer than maxBodyBytes and an element
// longer than maxRowBytes are rejected as soon as they are seen, so memory stays at about the
// cuts not yet parsed plus one element (plus a chunk) whatever the body.
//
// push(), pushBatches() and end() parse the cuts here, for callers that want rows; each batch of
// rows carries its texts (array-element-texts.ts): the string JSON.parse got, kept until the batch
// is validated, so that a row can be shown and checked as received.

import { isJsonWhitespace } from '../domain/json-text.js';
import { concatRawRows, type RawRows } from '../domain/raw-rows.js';
import { JsonArrayScanError } from './json-array-scan-error.js';
import { BATCH_FULL, ElementScan, rowTooLarge } from './element-scan.js';
import { CutBuffers, MAX_CUT_TEXT_BYTES, parseCut, type ScannedCut } from './scanned-cut.js';

export interface JsonArrayScannerOptions {
  /** Largest body accepted, in bytes. */
  readonly maxBodyBytes: number;
  /** Largest single element accepted, in bytes (with surrounding whitespace, without commas). */
  readonly maxRowBytes: number;
  /** Complete elements are cut once about this many bytes of them are waiting (default 48 KiB). */
  readonly batchBytes?: number;
  /** A batch covers about this many bytes at most (default 60 KiB, never less than batchBytes). */
  readonly maxBatchBytes?: number;
}

/**
 * Smaller batches keep the parsed rows and their text young: fewer survive into the old
 * generation, which is what grows the heap (sizes compared in docs/performance.md).
 */
export const DEFAULT_BATCH_BYTES = 48 * 1024;

/**
 * Batches follow the rows, not the chunks (a megabyte and more, uncompressed from a fast upstream),
 * and stay under the size whose text V8 would make a large object (MAX_CUT_TEXT_BYTES): 64 to 256
 * KiB a cut took 66-71 rather than 80 CPU-µs a row of csv+xlsx on Node 24 (docs/performance.md).
 */
export const DEFAULT_MAX_BATCH_BYTES = MAX_CUT_TEXT_BYTES;

const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

const BEFORE_ARRAY = 0;
const IN_ARRAY = 1;
const AFTER_ARRAY = 2;

/** `}` tried per guess, from the last of the chunk back, for one that a comma follows. */
const GUESS_TRIES = 4;

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
  readonly #buffers = new CutBuffers(16);

  #phase = BEFORE_ARRAY;
  #bytes = 0;
  #rows = 0;
  #ended = false;
  /** Offset of the first byte after the `[`: a cut starting later has an element before it. */
  #firstStart = -1;

  // Bytes not yet cut. #pendingStart is always a boundary: right after `[` or a depth-1 comma.
  #pending: Uint8Array[] = [];
  #pendingStart = 0;
  #pendingEnd = 0;

  /** The byte scan, valid for the bytes #pendingStart..#scan.scannedTo. */
  readonly #scan: ElementScan;

  /** Chunks left to scan before the next guess; grows after each wrong guess. */
  #fastPause = 0;
  #fastPauseNext = 1;

  /** Guessed cuts not confirmed yet, oldest first. */
  #unconfirmed: ScannedCut[] = [];
  /** While there are: every byte from the oldest one's start on, for a rewind. */
  #retained: Uint8Array[] = [];
  #retainedStart = 0;
  /** An error met after an unconfirmed guess: real only if the guesses hold. */
  #deferred: JsonArrayScanError | undefined;

  constructor(options: JsonArrayScannerOptions) {
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#maxRowBytes = options.maxRowBytes;
    this.#batchBytes = Math.max(1, options.batchBytes ?? DEFAULT_BATCH_BYTES);
    this.#maxBatchBytes = Math.max(this.#batchBytes, options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
    this.#scan = new ElementScan(this.#maxRowBytes, this.#maxBatchBytes);
  }

  /** Bytes pushed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Elements parsed so far by push(), pushBatches() and end(). */
  get rows(): number {
    return this.#rows;
  }

  /** True once the closing `]` has been seen. */
  get complete(): boolean {
    return this.#phase === AFTER_ARRAY;
  }

  /** Guessed cuts wait for their parse: what is cut after them may be undone by a rewind. */
  get unconfirmed(): number {
    return this.#unconfirmed.length;
  }

  /** An error waits for the guesses before it: parse them before pushing more. */
  get blocked(): boolean {
    return this.#deferred !== undefined;
  }

  /** Feeds the next chunk; returns the elements completed by it (often none: a shared empty array). */
  push(chunk: Uint8Array): RawRows {
    return [...this.pushBatches(chunk)].reduce(concatRawRows, NO_ROWS);
  }

  /**
   * Feeds the next chunk; returns the batches of elements completed by it, in order (often none),
   * each of about maxBatchBytes at most, parsed one by one as they are taken: take them all before
   * the next push.
   */
  pushBatches(chunk: Uint8Array): Iterable<RawRows> {
    return this.#parsed(this.pushCuts(chunk));
  }

  /** Declares the body finished; returns the last elements, or throws when the array is not closed. */
  end(): RawRows {
    return [...this.#parsed(this.endCuts())].reduce(concatRawRows, NO_ROWS);
  }

  /**
   * Feeds the next chunk; returns the cuts it completed, in order (often none). Parse each, then
   * confirm() or rewind() each guessed one, in order.
   */
  pushCuts(chunk: Uint8Array): ScannedCut[] {
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
    if (this.#unconfirmed.length > 0) this.#retained.push(chunk);
    if (this.#deferred !== undefined) return [];
    const cuts: ScannedCut[] = [];
    this.#guarded(() => this.#scanChunk(chunk, base, cuts));
    return cuts;
  }

  /** Declares the body finished; returns the last cuts, or throws when the array is not closed. */
  endCuts(): ScannedCut[] {
    this.#ended = true;
    const cuts: ScannedCut[] = [];
    if (this.#deferred === undefined) this.#guarded(() => this.#finish(cuts));
    return cuts;
  }

  /** A guessed cut parsed: the guess held. Throws an error met after it once no guess is left. */
  confirm(cut: ScannedCut): void {
    if (!cut.guessed) return;
    if (this.#unconfirmed[0] !== cut) throw new Error('JsonArrayScanner: guesses are confirmed in order');
    this.#unconfirmed.shift();
    const oldest = this.#unconfirmed[0];
    if (oldest === undefined) {
      this.#retained = [];
      const deferred = this.#deferred;
      this.#deferred = undefined;
      if (deferred !== undefined) throw deferred;
    } else {
      this.#retained = this.#retainedFrom(oldest.start);
      this.#retainedStart = oldest.start;
    }
  }

  /**
   * A guessed cut did not parse: the guess was wrong, and so may be every cut after it. Scans the
   * bytes again from its start (a true boundary) and returns the cuts that replace it and them.
   */
  rewind(cut: ScannedCut): ScannedCut[] {
    if (!cut.guessed || this.#unconfirmed[0] !== cut)
      throw new Error('JsonArrayScanner: only the oldest unconfirmed guess can be rewound to');
    const parts = this.#retainedFrom(cut.start);
    const end = parts.reduce((sum, part) => sum + part.length, cut.start);
    this.#unconfirmed = [];
    this.#retained = [];
    this.#deferred = undefined;
    this.#phase = IN_ARRAY;
    this.#startBatchAt(cut.start);
    this.#pending = parts;
    this.#pendingEnd = end;
    this.#fastPause = this.#fastPauseNext;
    this.#fastPauseNext = Math.min(MAX_FAST_PAUSE, this.#fastPauseNext * 2);
    const cuts: ScannedCut[] = [];
    this.#scanAndFlush(cuts);
    if (this.#ended) this.#finish(cuts);
    return cuts;
  }

  /** A cut's bytes (ScannedCut.bytes) are not needed any more: their buffer serves again. */
  recycle(bytes: Buffer): void {
    this.#buffers.give(bytes);
  }

  /** Cuts parsed here, as they are taken; a wrong guess rewinds. */
  *#parsed(cuts: ScannedCut[]): Generator<RawRows, void, undefined> {
    let queue = cuts;
    while (queue.length > 0) {
      const cut = queue.shift() as ScannedCut;
      let rows: RawRows;
      try {
        rows = parseCut(cut);
      } catch (error) {
        if (!cut.guessed) throw error;
        queue = this.rewind(cut);
        continue;
      }
      this.confirm(cut);
      this.recycle(cut.bytes);
      this.#rows += rows.length;
      if (rows.length > 0) yield rows;
    }
  }

  /** Runs a step that may meet an error; after an unconfirmed guess, the error waits for it. */
  #guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      const waits = error instanceof JsonArrayScanError && error.kind !== 'body-too-large';
      if (!waits || this.#unconfirmed.length === 0) throw error;
      this.#deferred = error;
    }
  }

  #scanChunk(chunk: Uint8Array, base: number, cuts: ScannedCut[]): void {
    const n = chunk.length;
    let i = 0;
    if (this.#phase === BEFORE_ARRAY) {
      i = skipWhitespace(chunk, 0);
      if (i === n) return;
      if (chunk[i] !== OPEN_BRACKET) {
        throw new JsonArrayScanError(
          'not-an-array',
          base + i,
          'the body is not a JSON array (no leading "[")',
        );
      }
      i++;
      this.#phase = IN_ARRAY;
      this.#firstStart = base + i;
      this.#startBatchAt(base + i);
    }
    if (this.#phase === AFTER_ARRAY) {
      this.#checkTrailing(chunk, i, base);
      return;
    }
    if (i === n) return;
    this.#pending.push(i === 0 ? chunk : chunk.subarray(i));
    this.#pendingEnd = base + n;

    if (this.#fastPause > 0) {
      this.#fastPause--;
      this.#scanAndFlush(cuts);
      return;
    }
    // Guess after guess through the chunk, each cut ending at most about maxBatchBytes on; when no
    // guess can be made, the byte scan.
    while (this.#phase === IN_ARRAY) {
      const waiting = this.#pendingEnd - this.#pendingStart;
      if (waiting < this.#batchBytes && waiting <= this.#maxRowBytes) return;
      if (!this.#tryFast(chunk, Math.max(i, this.#pendingStart - base), base, cuts)) {
        this.#scanAndFlush(cuts);
        return;
      }
    }
  }

  /** The end of the body: the rest is scanned, and the array must be closed. */
  #finish(cuts: ScannedCut[]): void {
    if (this.#phase === IN_ARRAY) this.#scanAndFlush(cuts);
    if (this.#phase !== AFTER_ARRAY) {
      const what =
        this.#phase === BEFORE_ARRAY ? 'the body is empty' : 'the body ends before the closing "]"';
      throw new JsonArrayScanError('truncated', this.#bytes, `${what} (after ${this.#bytes} bytes)`);
    }
  }

  /** Pending bytes now start at `offset`, a boundary; the byte scanner starts afresh there. */
  #startBatchAt(offset: number): void {
    this.#pending = [];
    this.#pendingStart = offset;
    this.#pendingEnd = offset;
    this.#scan.reset(offset);
  }

  /** The retained bytes from body offset `start` on. */
  #retainedFrom(start: number): Uint8Array[] {
    const parts: Uint8Array[] = [];
    let partStart = this.#retainedStart;
    for (const part of this.#retained) {
      const partEnd = partStart + part.length;
      if (partEnd > start) parts.push(partStart >= start ? part : part.subarray(start - partStart));
      partStart = partEnd;
    }
    return parts;
  }

  /**
   * The guess: the last `}` of this chunk (from `from` on) within maxBatchBytes of the cut's start
   * — or, when there is none, the chunk's last `}` — that white space and a comma follow ends a
   * row. False when no such `}` is found among the last few.
   */
  #tryFast(chunk: Uint8Array, from: number, base: number, cuts: ScannedCut[]): boolean {
    const bound = this.#pendingStart + this.#maxBatchBytes - base;
    let brace = bound > from && bound < chunk.length ? chunk.lastIndexOf(CLOSE_BRACE, bound - 1) : -1;
    if (brace < from) brace = chunk.lastIndexOf(CLOSE_BRACE);
    let comma = -1;
    for (let tries = 0; tries < GUESS_TRIES && brace >= from; tries++) {
      const after = skipWhitespace(chunk, brace + 1);
      if (after < chunk.length && chunk[after] === COMMA) {
        comma = after;
        break;
      }
      brace = brace > from ? chunk.lastIndexOf(CLOSE_BRACE, brace - 1) : -1;
    }
    if (comma < 0) return false;
    const end = base + brace + 1;
    // Rows inside a guessed cut are not measured: only guess when the cut itself fits a row.
    if (end - this.#pendingStart > this.#maxRowBytes) return false;
    const cut = this.#cut(end, true);
    if (this.#unconfirmed.length === 0) {
      this.#retained = [...this.#pending];
      this.#retainedStart = this.#pendingStart;
    }
    this.#unconfirmed.push(cut);
    cuts.push(cut);
    this.#startBatchAt(base + comma + 1);
    if (comma + 1 < chunk.length) {
      this.#pending.push(chunk.subarray(comma + 1));
      this.#pendingEnd = base + chunk.length;
    }
    if (this.#pendingEnd - this.#pendingStart > this.#maxRowBytes) this.#scanAndFlush(cuts);
    return true;
  }

  /**
   * Scans the pending bytes not scanned yet; cuts everything up to the closing `]` when it is
   * there, else up to the last depth-1 comma once a cut is due — and on the way, a cut at each
   * depth-1 comma past maxBatchBytes, so that cuts stay bounded here too; checks element sizes.
   * Empty cuts are left out.
   */
  #scanAndFlush(cuts: ScannedCut[]): void {
    for (let full = true; full;) {
      full = false;
      let partStart = this.#pendingStart;
      for (const part of this.#pending) {
        const partEnd = partStart + part.length;
        if (partEnd > this.#scan.scannedTo) {
          const close = this.#scan.scan(
            part,
            Math.max(0, this.#scan.scannedTo - partStart),
            partStart,
            this.#pendingStart,
          );
          if (close >= 0) {
            this.#close(close, cuts);
            return;
          }
          if (close === BATCH_FULL) {
            full = true;
            break;
          }
          this.#scan.scannedTo = partEnd;
        }
        partStart = partEnd;
      }
      if (full) cuts.push(this.#flushThroughLastComma());
    }
    if (this.#pendingEnd - this.#scan.elementStart > this.#maxRowBytes)
      throw rowTooLarge(this.#maxRowBytes, this.#scan.elementStart);
    if (this.#scan.lastComma >= 0 && this.#scan.lastComma - this.#pendingStart >= this.#batchBytes)
      cuts.push(this.#flushThroughLastComma());
  }
  /** The scanner met the closing `]` at `at`: cut the rest, then only whitespace may follow. */
  #close(at: number, cuts: ScannedCut[]): void {
    if (!this.#scan.sawValue && (this.#scan.lastComma >= 0 || this.#pendingStart !== this.#firstStart)) {
      throw new JsonArrayScanError('malformed', at, `a trailing comma before "]" at byte ${at}`);
    }
    if (this.#scan.sawValue && at - this.#scan.elementStart > this.#maxRowBytes)
      throw rowTooLarge(this.#maxRowBytes, this.#scan.elementStart);
    if (this.#scan.sawValue) cuts.push(this.#cut(at, false));
    let partStart = this.#pendingStart;
    for (const part of this.#pending) {
      const partEnd = partStart + part.length;
      if (partEnd > at) this.#checkTrailing(part, Math.max(0, at + 1 - partStart), partStart);
      partStart = partEnd;
    }
    this.#startBatchAt(this.#pendingEnd);
    this.#phase = AFTER_ARRAY;
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

  /** Cuts the pending bytes up to the last depth-1 comma and keeps the rest, still scanned. */
  #flushThroughLastComma(): ScannedCut {
    const end = this.#scan.lastComma;
    const cut = this.#cut(end, false);
    const kept: Uint8Array[] = [];
    let partStart = this.#pendingStart;
    for (const part of this.#pending) {
      const partEnd = partStart + part.length;
      if (partEnd > end + 1) kept.push(partStart > end ? part : part.subarray(end + 1 - partStart));
      partStart = partEnd;
    }
    this.#pending = kept;
    this.#pendingStart = end + 1;
    this.#scan.lastComma = -1;
    return cut;
  }

  /** `[` + the pending bytes up to `end` + `]`, in a buffer of the cut's own. */
  #cut(end: number, guessed: boolean): ScannedCut {
    const length = end - this.#pendingStart;
    const bytes = this.#buffers.take(length + 2);
    bytes[0] = OPEN_BRACKET;
    let at = 1;
    for (const part of this.#pending) {
      const take = Math.min(part.length, length + 1 - at);
      if (take <= 0) break;
      bytes.set(take === part.length ? part : part.subarray(0, take), at);
      at += take;
    }
    bytes[at] = CLOSE_BRACKET;
    return { bytes, start: this.#pendingStart, end, guessed };
  }
}
