// A 64-bit hash of bytes (cyrb53's two lanes), for tests of the fingerprint files: they sort,
// spill and compare whatever 8-byte hash they are given, so rows can be plain byte strings here.

export function hashBytes(record: Uint8Array, target: Buffer, offset: number): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < record.length; i++) {
    const byte = record[i] as number;
    h1 = Math.imul(h1 ^ byte, 2654435761);
    h2 = Math.imul(h2 ^ byte, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  target.writeUInt32LE(h1 >>> 0, offset);
  target.writeUInt32LE(h2 >>> 0, offset + 4);
}
