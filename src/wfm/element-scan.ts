// The byte scan of the JSON array scanner (json-array-scanner.ts): walks the bytes of the array's
// elements tracking strings (with `\\` escapes; string bodies are skipped with indexOf), nesting
// depth and commas at depth 1, and measures each element against maxRowBytes. Its state carries
// over from one part of the body to the next.

import { isJsonWhitespace } from '../domain/json-text.js';
import { JsonArrayScanError } from './json-array-scan-error.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** scan() stopped after a comma: a batch is full. */
export const BATCH_FULL = -2;

/** The error of an element longer than `maxRowBytes`, starting at byte `start`. */
export function rowTooLarge(maxRowBytes: number, start: number): JsonArrayScanError {
  return new JsonArrayScanError(
    'row-too-large',
    start,
    `the array element starting at byte ${start} is longer than ${maxRowBytes} bytes`,
  );
}

export class ElementScan {
  /** The state is valid for the bytes up to here. */
  scannedTo = 0;
  depth = 1;
  inString = false;
  /** The previous part ended inside a string with an odd run of backslashes. */
  escapePending = false;
  /** The current top-level element has a non-whitespace byte. */
  sawValue = false;
  elementStart = 0;
  /** Offset of the last depth-1 comma since the last reset, or -1. */
  lastComma = -1;

  constructor(
    private readonly maxRowBytes: number,
    private readonly maxBatchBytes: number,
  ) {}

  /** Starts afresh at `offset`, a boundary (right after `[` or a depth-1 comma). */
  reset(offset: number): void {
    this.scannedTo = offset;
    this.depth = 1;
    this.inString = false;
    this.escapePending = false;
    this.sawValue = false;
    this.elementStart = offset;
    this.lastComma = -1;
  }

  /**
   * The byte scanner over part[from..]: updates the state; returns the offset of a closing `]` at
   * depth 1, BATCH_FULL after a depth-1 comma past maxBatchBytes (scannedTo then says where it
   * stopped), or -1 at the end of the part. Throws on an empty element or an element longer than
   * maxRowBytes.
   */
  scan(part: Uint8Array, from: number, partBase: number, pendingStart: number): number {
    let depth = this.depth;
    let inString = this.inString;
    let sawValue = this.sawValue;
    let i = from;
    const n = part.length;
    if (this.escapePending && i < n) {
      this.escapePending = false;
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
          this.escapePending = (run & 1) === 1;
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
        if (at - this.elementStart > this.maxRowBytes) throw rowTooLarge(this.maxRowBytes, this.elementStart);
        this.elementStart = at + 1;
        this.lastComma = at;
        sawValue = false;
        if (at - pendingStart >= this.maxBatchBytes) {
          this.scannedTo = at + 1;
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
    this.depth = depth;
    this.inString = inString;
    this.sawValue = sawValue;
    return close;
  }
}
