// Counts the rows that changed between the previous export of a period and the current one: the
// previous row-hashes.bin arrives as a stream of chunks (from the destination, local or S3), the
// current fingerprints are walked in id order beside it, a block at a time. Both are sorted by id,
// so one pass over each suffices, and memory holds a chunk and a block, whatever the row count.

import type { EntryReader } from './entry-file.js';
import {
  ENTRY_BYTES,
  OLDER_ROW_HASHES_MAGICS,
  ROW_HASHES_FILE,
  ROW_HASHES_MAGIC,
  RowHashesFormatError,
  RowHashesInvalidError,
} from './row-hashes-format.js';
import type { SortedFingerprints } from './row-fingerprints.js';

export interface RowChanges {
  /** Rows whose id is new. */
  readonly added: number;
  /** Rows of the previous export whose id is gone. */
  readonly removed: number;
  /** Rows present in both whose exported values differ. */
  readonly changed: number;
}

/** push() every chunk of the previous export's row-hashes.bin, then finish(). */
export class RowChangeCounter {
  readonly #current: EntryReader;
  #pending: Buffer = Buffer.alloc(0);
  #headerChecked = false;
  #lastPrevious = Number.NEGATIVE_INFINITY;
  #added = 0;
  #removed = 0;
  #changed = 0;
  #result: RowChanges | undefined;

  constructor(current: SortedFingerprints) {
    this.#current = current.entries();
  }

  push(chunk: Buffer): void {
    let data = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    if (!this.#headerChecked) {
      if (data.length < ROW_HASHES_MAGIC.length) {
        this.#pending = data;
        return;
      }
      const header = data.subarray(0, ROW_HASHES_MAGIC.length);
      if (OLDER_ROW_HASHES_MAGICS.some((magic) => header.equals(magic)))
        throw new RowHashesFormatError(
          `the previous ${ROW_HASHES_FILE} is in the older format ${header.toString('latin1')}, whose row hashes cannot be compared with ${ROW_HASHES_MAGIC.toString('latin1')}`,
        );
      if (!header.equals(ROW_HASHES_MAGIC))
        throw new RowHashesInvalidError(`the previous ${ROW_HASHES_FILE} has an unknown header`);
      this.#headerChecked = true;
      data = data.subarray(ROW_HASHES_MAGIC.length);
    }
    const whole = data.length - (data.length % ENTRY_BYTES);
    for (let offset = 0; offset < whole; offset += ENTRY_BYTES) this.#previousEntry(data, offset);
    this.#pending = Buffer.from(data.subarray(whole));
  }

  finish(): RowChanges {
    if (this.#result !== undefined) return this.#result;
    if (!this.#headerChecked || this.#pending.length !== 0) {
      throw new RowHashesInvalidError(`the previous ${ROW_HASHES_FILE} is truncated`);
    }
    // Current rows past the previous export's last id are new.
    this.#added += this.#current.remaining;
    this.#result = { added: this.#added, removed: this.#removed, changed: this.#changed };
    return this.#result;
  }

  #previousEntry(data: Buffer, offset: number): void {
    const id = data.readDoubleLE(offset);
    if (!(id > this.#lastPrevious))
      throw new RowHashesInvalidError(`the previous ${ROW_HASHES_FILE} is not sorted by id`);
    this.#lastPrevious = id;
    const current = this.#current;
    // Current rows with smaller ids are new.
    while (!current.done && current.id < id) {
      this.#added++;
      current.advance();
    }
    if (!current.done && current.id === id) {
      if (!current.hashEquals(data, offset + 8)) this.#changed++;
      current.advance();
    } else {
      this.#removed++;
    }
  }
}
