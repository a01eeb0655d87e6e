// The fingerprint of one exported row: a 64-bit hash over the values of its exported columns, each
// fed in with its type. Values, not the text of a file: both files render their cells from these
// values with fixed formatters (render/cell-text.ts), so equal values mean equal cells, and the hash
// is the same whichever formats are written and whatever CSV_DELIMITER or CSV_BOM say.
//
// The hash is not cryptographic — nobody gains by forging a collision in their own export — but
// must rarely miss a change: two 32-bit multiply-xorshift lanes (cyrb53's construction, all 64 bits
// kept) miss one with a chance of about 2^-60 per changed row; node:crypto's per-call cost would
// dominate on rows this small (docs/performance.md).

import type { CellValue, Column } from '../domain/column.js';

// Markers above every UTF-16 code unit, so that the stream of units reads back one way: a string's
// units end with STRING_END, every other value starts with its marker.
const NULL = 0x10000;
const STRING_END = 0x10001;
const NUMBER = 0x10002;
const FALSE = 0x10003;
const TRUE = 0x10004;

// A number goes in as the bits of its float64, low word first on any host.
const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);
const LOW = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

export class RowHasher<R> {
  readonly #values: readonly ((row: R) => CellValue)[];

  constructor(columns: readonly Pick<Column<R>, 'value'>[]) {
    this.#values = columns.map((c) => c.value);
  }

  /** Writes the 8-byte hash of `row` into `target` at `offset`. */
  hashInto(row: R, target: Buffer, offset: number): void {
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    const values = this.#values;
    for (let c = 0; c < values.length; c++) {
      const value = (values[c] as (row: R) => CellValue)(row);
      if (typeof value === 'string') {
        for (let i = 0; i < value.length; i++) {
          const unit = value.charCodeAt(i);
          h1 = Math.imul(h1 ^ unit, 2654435761);
          h2 = Math.imul(h2 ^ unit, 1597334677);
        }
        h1 = Math.imul(h1 ^ STRING_END, 2654435761);
        h2 = Math.imul(h2 ^ STRING_END, 1597334677);
      } else if (typeof value === 'number') {
        // + 0 makes -0 the 0 every formatter prints.
        float[0] = value + 0;
        h1 = Math.imul(h1 ^ NUMBER, 2654435761);
        h2 = Math.imul(h2 ^ NUMBER, 1597334677);
        // In 16-bit pieces like a string's units: a multiply carries a change only upwards, so a
        // change in a word's top bit would stay there, and two of them would cancel out.
        const low = words[LOW] as number;
        const high = words[HIGH] as number;
        h1 = Math.imul(Math.imul(h1 ^ (low & 0xffff), 2654435761) ^ (low >>> 16), 2654435761);
        h2 = Math.imul(Math.imul(h2 ^ (low & 0xffff), 1597334677) ^ (low >>> 16), 1597334677);
        h1 = Math.imul(Math.imul(h1 ^ (high & 0xffff), 2654435761) ^ (high >>> 16), 2654435761);
        h2 = Math.imul(Math.imul(h2 ^ (high & 0xffff), 1597334677) ^ (high >>> 16), 1597334677);
      } else {
        const marker = value === null ? NULL : value ? TRUE : FALSE;
        h1 = Math.imul(h1 ^ marker, 2654435761);
        h2 = Math.imul(h2 ^ marker, 1597334677);
      }
    }
    writeHashLanes(h1, h2, target, offset);
  }
}

/** The two lanes of a cyrb53-style hash mixed together (its last step), written as 8 bytes. */
export function writeHashLanes(h1: number, h2: number, target: Buffer, offset: number): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  target.writeUInt32LE(h1 >>> 0, offset);
  target.writeUInt32LE(h2 >>> 0, offset + 4);
}
