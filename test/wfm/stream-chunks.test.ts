import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamChunks } from '../../src/wfm/stream-chunks.js';

/** A byte stream that buffers up to `highWaterMark` and is fed by hand. */
function fedStream(highWaterMark: number): Readable {
  return new Readable({ highWaterMark, read: () => undefined });
}

async function readAll(chunks: StreamChunks): Promise<Buffer[]> {
  const read: Buffer[] = [];
  for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) read.push(next.value);
  return read;
}

describe('StreamChunks', () => {
  it('hands out each chunk as it was pushed, never several joined, however many wait', async () => {
    const stream = fedStream(2 * 1024 * 1024);
    const pushed = Array.from({ length: 40 }, (_, i) => Buffer.alloc(16 * 1024, i));
    // All of them wait in the stream's buffer before the first is read: its own iterator would
    // hand them out as one buffer of 640 KiB.
    for (const chunk of pushed) stream.push(chunk);
    stream.push(null);
    const read = await readAll(new StreamChunks(stream));
    expect(read).toHaveLength(pushed.length);
    read.forEach((chunk, i) => expect(chunk).toBe(pushed[i]));
  });

  it('takes no more than 64 KiB ahead of its reader', async () => {
    const stream = fedStream(1024 * 1024);
    for (let i = 0; i < 20; i++) stream.push(Buffer.alloc(16 * 1024, i));
    const chunks = new StreamChunks(stream);
    await chunks.next();
    // Let the stream flow as far as it would.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.isPaused()).toBe(true);
    expect(stream.readableLength).toBeGreaterThanOrEqual(12 * 16 * 1024);
    stream.push(null);
    expect(await readAll(chunks)).toHaveLength(19);
  });

  it('joins small chunks with those after them, up to 64 KiB, in order and never cut', async () => {
    const stream = fedStream(2 * 1024 * 1024);
    // Rows written one at a time, then a large chunk, then small ones again.
    const pushed = [
      ...Array.from({ length: 100 }, (_, i) => Buffer.alloc(900, i)),
      Buffer.alloc(40 * 1024, 0xaa),
      ...Array.from({ length: 5 }, (_, i) => Buffer.alloc(700, 200 + i)),
    ];
    for (const chunk of pushed) stream.push(chunk);
    stream.push(null);
    const read = await readAll(new StreamChunks(stream));
    expect(Buffer.concat(read).equals(Buffer.concat(pushed))).toBe(true);
    expect(read.length).toBeLessThan(10);
    for (const chunk of read) expect(chunk.length).toBeLessThanOrEqual(64 * 1024);
    // A chunk of 4 KiB or more is handed out as it is, not copied.
    expect(read).toContain(pushed[100]);
  });

  it('hands out the chunks before an error, then throws it', async () => {
    const stream = fedStream(1024 * 1024);
    const chunks = new StreamChunks(stream);
    stream.push(Buffer.from('one'));
    await new Promise((resolve) => setImmediate(resolve));
    stream.destroy(new Error('reset'));
    expect((await chunks.next()).value?.toString()).toBe('one');
    await expect(chunks.next()).rejects.toThrow('reset');
  });

  it('throws ERR_STREAM_PREMATURE_CLOSE for a stream closed before its end, as its own iterator does', async () => {
    const stream = fedStream(1024);
    const chunks = new StreamChunks(stream);
    stream.destroy();
    await expect(chunks.next()).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('ends an empty stream at once, and leaves a detached stream to other readers', async () => {
    const empty = fedStream(1024);
    empty.push(null);
    expect(await new StreamChunks(empty).next()).toEqual({ value: undefined, done: true });

    const stream = fedStream(1024);
    const chunks = new StreamChunks(stream);
    chunks.detach();
    expect(stream.listenerCount('data')).toBe(0);
    stream.push(Buffer.from('left'));
    stream.push(null);
    expect(Buffer.concat(await stream.toArray()).toString()).toBe('left');
  });
});
