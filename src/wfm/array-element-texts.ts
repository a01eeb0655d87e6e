// The texts of the elements of one parsed batch of the report: the scanner's `[` + rows + `]`
// text, split at its top-level commas the first time a row's text is asked for (a rejected row,
// a row that is not UTF-8), never on the common path. A batch whose bytes are not all UTF-8 keeps
// a copy of its bytes so that each row can say whether its own bytes were valid.

import { isUtf8 } from 'node:buffer';
import { arrayElementBounds } from '../domain/json-text.js';
import type { RowTexts } from '../domain/raw-rows.js';

/**
 * The row texts of one batch. When its bytes are all UTF-8, a row's text is a slice of the text
 * JSON.parse got. Otherwise the batch keeps its bytes and is split on them (read as latin1, one
 * code unit a byte), each row decoded on its own — the same text as its slice of the whole
 * decoding, because every cut is at an ASCII byte, where a UTF-8 decoder starts afresh.
 */
class ElementTexts implements RowTexts {
  readonly allUtf8: boolean;
  #text: string | undefined;
  /** Only for a batch that is not all UTF-8. */
  #bytes: Buffer | undefined;
  #bounds: number[] | undefined;

  constructor(text: string, bytes: Buffer | undefined) {
    this.#text = text;
    this.#bytes = bytes;
    this.allUtf8 = bytes === undefined;
  }

  textOf(index: number): string {
    const [start, end] = this.#boundsOf(index);
    return this.#bytes === undefined
      ? (this.#text ?? released()).slice(start, end)
      : this.#bytes.toString('utf8', start, end);
  }

  isUtf8(index: number): boolean {
    const [start, end] = this.#boundsOf(index);
    return this.#bytes === undefined || isUtf8(this.#bytes.subarray(start, end));
  }

  release(): void {
    this.#text = undefined;
    this.#bytes = undefined;
    this.#bounds = undefined;
  }

  #boundsOf(index: number): [number, number] {
    const text = this.#text ?? released();
    this.#bounds ??= arrayElementBounds(this.#bytes === undefined ? text : this.#bytes.toString('latin1'));
    const start = this.#bounds[2 * index];
    const end = this.#bounds[2 * index + 1];
    if (start === undefined || end === undefined) throw new RangeError(`no row ${index} in this batch`);
    return [start, end];
  }
}

function released(): never {
  throw new Error('the texts of this batch were released after it was validated');
}

/**
 * The row texts of one parsed batch: `text` is what JSON.parse got (`[` + rows + `]`), `bytes`
 * the same, undecoded — read now (one fast validation) and copied only when not all UTF-8, since
 * the caller reuses its buffer.
 */
export function arrayElementTexts(text: string, bytes: Uint8Array): RowTexts {
  return new ElementTexts(text, isUtf8(bytes) ? undefined : Buffer.from(bytes));
}
