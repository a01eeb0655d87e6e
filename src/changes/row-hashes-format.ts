// The `row-hashes.bin` file format, shared by the code that writes it (row-fingerprints.ts, through
// temp files) and the code that reads it back (row-change-counter.ts).
//
// The 8 ASCII bytes `SXRH0002`, then one 16-byte entry per exported row, ids strictly ascending:
// the shift id as a float64 little-endian, then the two 32-bit little-endian lanes of the hash of
// the row's exported values (row-hash.ts). `SXRH0001` files hashed each row's shifts.csv record
// instead: their hashes cannot be compared with these, so they are refused as an older format.

import { ShiftExportError } from '../errors.js';

export const ROW_HASHES_FILE = 'row-hashes.bin';
export const ROW_HASHES_CONTENT_TYPE = 'application/octet-stream';
export const ROW_HASHES_MAGIC = Buffer.from('SXRH0002', 'latin1');
/** Headers of the formats before this one. */
export const OLDER_ROW_HASHES_MAGICS: readonly Buffer[] = [Buffer.from('SXRH0001', 'latin1')];
/** Bytes of one entry: float64 id + 8-byte hash. */
export const ENTRY_BYTES = 16;

/** A row-hashes file that is not one (truncated, not sorted, foreign). */
export class RowHashesInvalidError extends ShiftExportError {
  constructor(message: string) {
    super('ROW_HASHES_INVALID', message);
  }
}

/** A row-hashes file written by an older release, whose hashes cannot be compared with ours. */
export class RowHashesFormatError extends ShiftExportError {
  constructor(message: string) {
    super('ROW_HASHES_OLDER_FORMAT', message);
  }
}
