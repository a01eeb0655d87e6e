// A cut of the report body: whole top-level elements of the array, found by the scanner
// (json-array-scanner.ts) and not parsed yet. A cut crosses to whichever thread parses it as
// `[` + its elements' bytes + `]` in one buffer of its own; a cut the scanner only guessed is
// confirmed by its parse, and when it does not parse the scanner rewinds to it and scans bytes.

import type { RawRows } from '../domain/raw-rows.js';
import { withRowTexts } from '../domain/raw-rows.js';
import { arrayElementTexts } from './array-element-texts.js';
import { JsonArrayScanError } from './json-array-scan-error.js';

export interface ScannedCut {
  /**
   * `[` + the elements' bytes + `]`, at the start of a buffer of the cut's own (CutBuffers): a
   * parser on another thread moves that buffer there and back (ParsedCut.bytes) rather than copy it.
   */
  readonly bytes: Buffer;
  /** Body offset of the first byte after the `[` or comma the cut starts after. */
  readonly start: number;
  /** Body offset of the byte after the cut's last element (its `}`, or the comma or `]` after it). */
  readonly end: number;
  /**
   * The scanner guessed that the last `}` ends an element: only the parse can tell. Confirm it
   * (JsonArrayScanner.confirm) once it parsed, rewind to it (JsonArrayScanner.rewind) when not.
   */
  readonly guessed: boolean;
}

/**
 * The most bytes of the report, or of a division's spool, decoded into one string (a cut's text,
 * before JSON.parse). V8 keeps a string over 128 KiB (over 64K characters, once one of them is not
 * Latin-1) as a large object, in pages mapped for it and unmapped after it: at 64 to 256 KiB a cut,
 * decoding into fresh pages cost an export thread ~6% of its time in page faults (perf, 300k rows).
 * 60 KiB of UTF-8 are at most 60K characters, and a cut that ends a row past it stays under.
 */
export const MAX_CUT_TEXT_BYTES = 60 * 1024;

/**
 * Buffers for cuts, handed out again once a cut has been parsed (JsonArrayScanner.recycle): a
 * fresh buffer per cut would be ~1 GB of short-lived memory outside the heap at 1M rows, which the
 * collector frees late.
 */
export class CutBuffers {
  readonly #free: Buffer[] = [];
  readonly #keep: number;

  constructor(keep: number) {
    this.#keep = keep;
  }

  /** A buffer of exactly `length` bytes (a view of a pooled one). */
  take(length: number): Buffer {
    for (let i = this.#free.length - 1; i >= 0; i--) {
      const buffer = this.#free[i] as Buffer;
      if (buffer.length >= length) {
        this.#free.splice(i, 1);
        return buffer.subarray(0, length);
      }
    }
    return Buffer.allocUnsafeSlow(Math.max(length, 64 * 1024)).subarray(0, length);
  }

  give(bytes: Buffer): void {
    if (this.#free.length >= this.#keep) return;
    const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.buffer.byteLength - bytes.byteOffset);
    this.#free.push(whole);
  }
}

/** JSON.parse of a cut, with its rows' texts; a cut that does not parse throws a 'malformed' error. */
export function parseCut(cut: ScannedCut): RawRows {
  const source = cut.bytes.toString('utf8');
  let rows: unknown[];
  try {
    rows = JSON.parse(source) as unknown[];
  } catch (error) {
    throw new JsonArrayScanError(
      'malformed',
      cut.start,
      `malformed JSON in the bytes ${cut.start}..${cut.end}: ${(error as Error).message}`,
      error,
    );
  }
  return withRowTexts(rows, arrayElementTexts(source, cut.bytes));
}
