// The texts of the elements of one parsed batch of the report: the scanner's `[` + rows + `]`
// text, split at its top-level commas the first time a row's text is asked for (a rejected row,
// a row that is not UTF-8), never on the common path. A batch whose bytes are not all UTF-8 keeps
// a copy of its bytes so that each row can say whether its own bytes were valid.

import { isUtf8 } from 'node:buffer';
import { arrayElementBounds } from '../domain/json-text.js';
import type { RowTexts } from '../domain/raw-rows.js';

/** The row texts of a batch whose bytes are valid UTF-8: slices of the text JSON.parse got. */
class Utf8ElementTexts implements RowTexts {
  readonly allUtf8 = true;
  #text: string | undefined;
  #bounds: number[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  textOf(index: number): string {
    const text = this.#text ?? released();
    this.#bounds ??= arrayElementBounds(text);
    const start = this.#bounds[2 * index];
    const end = this.#bounds[2 * index + 1];
    if (start === undefined || end === undefined) throw new RangeError(`no row ${index} in this batch`);
    return text.slice(start, end);
  }

  isUtf8(): boolean {
    return true;
  }

  release(): void {
    this.#text = undefined;
    this.#bounds = undefined;
  }
}

/**
 * The row texts of a batch with bytes that are not UTF-8: split on the bytes (read as latin1, one
 * code unit a byte), each row decoded on its own — the same text as its slice of the whole
 * decoding, because every cut is at an ASCII byte, where a UTF-8 decoder starts afresh.
 */
class MixedElementTexts implements RowTexts {
  readonly allUtf8 = false;
  #bytes: Buffer | undefined;
  #bounds: number[] | undefined;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  textOf(index: number): string {
    const [bytes, start, end] = this.#boundsOf(index);
    return bytes.toString('utf8', start, end);
  }

  isUtf8(index: number): boolean {
    const [bytes, start, end] = this.#boundsOf(index);
    return isUtf8(bytes.subarray(start, end));
  }

  release(): void {
    this.#bytes = undefined;
    this.#bounds = undefined;
  }

  #boundsOf(index: number): [Buffer, number, number] {
    const bytes = this.#bytes ?? released();
    this.#bounds ??= arrayElementBounds(bytes.toString('latin1'));
    const start = this.#bounds[2 * index];
    const end = this.#bounds[2 * index + 1];
    if (start === undefined || end === undefined) throw new RangeError(`no row ${index} in this batch`);
    return [bytes, start, end];
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
  return isUtf8(bytes) ? new Utf8ElementTexts(text) : new MixedElementTexts(Buffer.from(bytes));
}
