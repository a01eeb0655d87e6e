import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParallelDeflateCrc32 } from '../../../src/render/xlsx/parallel-deflate.js';

/** Deflates `writes` (in that order and those sizes) through the stream; its output and counts. */
async function deflate(
  writes: readonly Buffer[],
  options: { level?: number; parallel: number; blockBytes: number },
): Promise<{ out: Buffer; crc: number; size: number; compressed: number }> {
  const stream = new ParallelDeflateCrc32({ level: options.level ?? 1, ...options });
  const chunks: Buffer[] = [];
  await pipeline(Readable.from(writes, { objectMode: false }), stream, async (source) => {
    for await (const chunk of source) chunks.push(chunk as Buffer);
  });
  return {
    out: Buffer.concat(chunks),
    crc: stream.digest().readUInt32BE(0),
    size: stream.size(),
    compressed: stream.size(true),
  };
}

/** Sheet-like text: repetitive, as the row XML is, with numbers that vary. */
function sheetText(rows: number, seed: number): Buffer {
  let text = '';
  for (let r = 0; r < rows; r++)
    text += `<row r="${r + 2}"><c r="A${r + 2}" t="inlineStr"><is><t>shop ${(r * seed) % 97}</t></is></c><c r="B${r + 2}"><v>${(r * 7919 + seed) % 100003}</v></c></row>`;
  return Buffer.from(text);
}

/** `data` cut into writes at the given sizes (cycled). */
function cut(data: Buffer, sizes: readonly number[]): Buffer[] {
  const writes: Buffer[] = [];
  for (let at = 0, i = 0; at < data.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    writes.push(data.subarray(at, at + size));
    at += size;
  }
  return writes;
}

describe('ParallelDeflateCrc32', () => {
  it('gives one raw deflate stream that inflates to the input, with its CRC-32 and sizes', async () => {
    const data = sheetText(20_000, 3);
    const result = await deflate(cut(data, [65_536]), { parallel: 4, blockBytes: 1 << 18 });
    expect(inflateRawSync(result.out).equals(data)).toBe(true);
    expect(result.crc).toBe(crc32(data));
    expect(result.size).toBe(data.length);
    expect(result.compressed).toBe(result.out.length);
    expect(result.out.length).toBeLessThan(data.length / 3);
  });

  it('writes the same bytes whatever the parallelism and however the input was cut into writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_500 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 100, max: 9_000 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1_000, max: 40_000 }),
        fc.integer({ min: 1, max: 6 }),
        async (rows, seed, sizes, blockBytes, level) => {
          const data = sheetText(rows, seed);
          const one = await deflate([data], { level, parallel: 1, blockBytes });
          const many = await deflate(cut(data, sizes), { level, parallel: 4, blockBytes });
          expect(many.out.equals(one.out)).toBe(true);
          expect(inflateRawSync(many.out).equals(data)).toBe(true);
          expect(many.crc).toBe(crc32(data));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('says when each write is copied: a writer that then overwrites it changes nothing', async () => {
    const data = sheetText(5_000, 7);
    const original = Buffer.from(data);
    const writes = cut(data, [7_000, 100, 40_000]);
    const taken: Buffer[] = [];
    const stream = new ParallelDeflateCrc32({
      level: 1,
      parallel: 3,
      blockBytes: 20_000,
      taken: (bytes) => {
        taken.push(bytes);
        bytes.fill(0x78);
      },
    });
    const out: Buffer[] = [];
    await pipeline(Readable.from(writes, { objectMode: false }), stream, async (source) => {
      for await (const chunk of source) out.push(chunk as Buffer);
    });
    expect(taken).toHaveLength(writes.length);
    taken.forEach((bytes, i) => expect(bytes).toBe(writes[i]));
    expect(inflateRawSync(Buffer.concat(out)).equals(original)).toBe(true);
    expect(stream.digest().readUInt32BE(0)).toBe(crc32(original));
  });

  it('deflates nothing into a valid empty stream', async () => {
    const result = await deflate([], { parallel: 2, blockBytes: 1024 });
    expect(inflateRawSync(result.out).length).toBe(0);
    expect(result.crc).toBe(0);
  });

  it('refuses a block size that is not a positive whole number', () => {
    expect(() => new ParallelDeflateCrc32({ level: 1, parallel: 1, blockBytes: 0 })).toThrow(/blockBytes/);
  });
});
