import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// The stand-in as archiver's crc32-stream loads it.
const crc = require('../../stubs/crc-32/crc32.js') as {
  buf(data: Uint8Array | number[], seed?: unknown): number;
  bstr(text: string, seed?: number): number;
  str(text: string, seed?: number): number;
};

// The oracle: the table-driven CRC-32 (IEEE 802.3) of crc-32 itself, signed like its results.
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function reference(bytes: Uint8Array, seed = 0): number {
  let c = seed ^ -1;
  for (const byte of bytes) c = (c >>> 8) ^ (TABLE[(c ^ byte) & 0xff] as number);
  return c ^ -1;
}

describe('crc-32 stand-in', () => {
  it('gives the check value of CRC-32', () => {
    expect(crc.buf(Buffer.from('123456789')) >>> 0).toBe(0xcbf43926);
    expect(crc.str('123456789') >>> 0).toBe(0xcbf43926);
  });

  it('equals the reference for any bytes and seed, chained as crc32-stream chains it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const first = crc.buf(a);
        expect(first).toBe(reference(a));
        expect(crc.buf(b, first)).toBe(reference(b, reference(a)));
        expect(crc.buf(Array.from(b), first)).toBe(reference(b, reference(a)));
      }),
    );
  });

  it('reads a seed that is not a number as 0, as crc-32 does (crc32-stream starts with a Buffer)', () => {
    const data = Buffer.from('shift-export');
    expect(crc.buf(data, Buffer.alloc(4))).toBe(reference(data));
    expect(crc.buf(data, undefined)).toBe(reference(data));
  });

  it('hashes binary strings by their low bytes and text as UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 50 }), (text) => {
        expect(crc.str(text)).toBe(reference(Buffer.from(text, 'utf8')));
        const low = Uint8Array.from({ length: text.length }, (_, i) => text.charCodeAt(i) & 0xff);
        expect(crc.bstr(text)).toBe(reference(low));
      }),
    );
  });
});
