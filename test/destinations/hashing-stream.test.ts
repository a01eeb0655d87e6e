import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashingStream } from '../../src/destinations/hashing-stream.js';

async function through(chunks: readonly Uint8Array[]): Promise<{ hashing: HashingStream; out: Buffer }> {
  const hashing = new HashingStream();
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk);
      callback();
    },
  });
  await pipeline(Readable.from(chunks.map((c) => Buffer.from(c))), hashing, sink);
  return { hashing, out: Buffer.concat(received) };
}

describe('HashingStream', () => {
  it('passes every byte through unchanged and reports their count and sha256, however they are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 20 }), async (chunks) => {
        const { hashing, out } = await through(chunks);
        const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
        expect(out.equals(all)).toBe(true);
        expect(hashing.digest()).toEqual({
          bytes: all.length,
          sha256: createHash('sha256').update(all).digest('hex'),
        });
      }),
      { numRuns: 100 },
    );
  });

  it('hashes an empty file as the sha256 of nothing', async () => {
    const { hashing } = await through([]);
    expect(hashing.digest()).toEqual({
      bytes: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
  });

  it('refuses to give a digest before the stream has ended', () => {
    const hashing = new HashingStream();
    hashing.write('abc');
    expect(() => hashing.digest()).toThrow(/before the stream ended/);
    expect(hashing.bytesSeen).toBe(3);
  });
});
