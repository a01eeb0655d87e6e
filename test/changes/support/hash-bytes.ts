// A 64-bit hash of bytes (cyrb53's two lanes), for tests of the fingerprint files: they sort,
// spill and compare whatever 8-byte hash they are given, so rows can be plain byte strings here.

import { writeHashLanes } from '../../../src/changes/row-hash.js';

export function hashBytes(record: Uint8Array, target: Buffer, offset: number): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < record.length; i++) {
    const byte = record[i] as number;
    h1 = Math.imul(h1 ^ byte, 2654435761);
    h2 = Math.imul(h2 ^ byte, 1597334677);
  }
  writeHashLanes(h1, h2, target, offset);
}
