// The `row-hashes.bin` file format, shared by the code that writes it (row-fingerprints.ts, through
// temp files) and the code that reads it back (row-change-counter.ts).
//
// The 8 ASCII bytes `SXRH0001`, then one 16-byte entry per exported row, ids strictly ascending:
// the shift id as a float64 little-endian, then the two 32-bit little-endian lanes of the hash of
// the row's CSV record (bytes without CR LF; see hashInto in row-fingerprints.ts).

import { ShiftExportError } from '../../errors.js';

export const ROW_HASHES_FILE = 'row-hashes.bin';
export const ROW_HASHES_CONTENT_TYPE = 'application/octet-stream';
export const ROW_HASHES_MAGIC = Buffer.from('SXRH0001', 'latin1');
/** Bytes of one entry: float64 id + 8-byte hash. */
export const ENTRY_BYTES = 16;

/** A row-hashes file that is not one (truncated, not sorted, foreign). */
export class RowHashesInvalidError extends ShiftExportError {
  constructor(message: string) {
    super('ROW_HASHES_INVALID', message);
  }
}
