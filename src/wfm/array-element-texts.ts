// The texts of the elements of one parsed batch of the report: the scanner's `[` + rows + `]`
// text, split at its top-level commas the first time a row's text is asked for (a rejected row,
// a closer check), never on the common path. A batch whose bytes are not all UTF-8 keeps a copy
// of its bytes so that each row can say whether its own bytes were valid.

import { isUtf8 } from 'node:buffer';
import { arrayElementBounds } from '../domain/json-text.js';
import type { RowTexts } from '../domain/raw-rows.js';

/** The row texts of a batch whose bytes are valid UTF-8: slices of the text JSON.parse got. */
class Utf8ElementTexts implements RowTexts {
  readonly allUtf8 = true;
  readonly #text: string;
  #bounds: number[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  textOf(index: number): string {
    this.#bounds ??= arrayElementBounds(this.#text);
    const start = this.#bounds[2 * index];
    const end = this.#bounds[2 * index + 1];
    if (start === undefined || end === undefined) throw new RangeError(`no row ${index} in this batch`);
    return this.#text.slice(start, end);
  }

  isUtf8(): boolean {
    return true;
  }

  someBatchText(probe: (batchText: string) => boolean): boolean {
    return probe(this.#text);
  }
}

/**
 * The row texts of a batch with bytes that are not UTF-8: split on the bytes (read as latin1, one
 * code unit a byte), each row decoded on its own — the same text as its slice of the whole
 * decoding, because every cut is at an ASCII byte, where a UTF-8 decoder starts afresh.
 */
class MixedElementTexts implements RowTexts {
  readonly allUtf8 = false;
  readonly #text: string;
  readonly #bytes: Buffer;
  #bounds: number[] | undefined;

  constructor(text: string, bytes: Buffer) {
    this.#text = text;
    this.#bytes = bytes;
  }

  textOf(index: number): string {
    const [start, end] = this.#boundsOf(index);
    return this.#bytes.toString('utf8', start, end);
  }

  isUtf8(index: number): boolean {
    const [start, end] = this.#boundsOf(index);
    return isUtf8(this.#bytes.subarray(start, end));
  }

  someBatchText(probe: (batchText: string) => boolean): boolean {
    return probe(this.#text);
  }

  #boundsOf(index: number): [number, number] {
    this.#bounds ??= arrayElementBounds(this.#bytes.toString('latin1'));
    const start = this.#bounds[2 * index];
    const end = this.#bounds[2 * index + 1];
    if (start === undefined || end === undefined) throw new RangeError(`no row ${index} in this batch`);
    return [start, end];
  }
}

/**
 * The row texts of one parsed batch: `text` is what JSON.parse got (`[` + rows + `]`), `bytes`
 * the same, undecoded — read now (one fast validation) and copied only when not all UTF-8, since
 * the caller reuses its buffer.
 */
export function arrayElementTexts(text: string, bytes: Uint8Array): RowTexts {
  return isUtf8(bytes) ? new Utf8ElementTexts(text) : new MixedElementTexts(text, Buffer.from(bytes));
}
