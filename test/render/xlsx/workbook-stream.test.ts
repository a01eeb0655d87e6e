import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RejectedRow } from '../../../src/domain/rejected-row.js';
import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import { ShiftExportError } from '../../../src/errors.js';
import {
  ShiftsWorkbookWriter,
  type ShiftsWorkbookOptions,
} from '../../../src/render/xlsx/shifts-workbook-writer.js';
import { HIGH_WATER_BYTES, YIELD_EVERY_ROWS } from '../../../src/render/xlsx/write-pacer.js';
import { about, shiftRecord, summaries } from './shift-fixtures.js';
import { CREATED_AT, MemorySink, readWorkbook, renderWorkbook } from './workbook-io.js';

/** Holds every write until release(): a destination that has stopped taking bytes. */
class HeldSink extends Writable {
  readonly chunks: Buffer[] = [];
  private held: (() => void)[] = [];
  private flowing = false;

  get heldWrites(): number {
    return this.held.length;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    if (this.flowing) callback();
    else this.held.push(() => callback());
  }

  release(): void {
    this.flowing = true;
    const held = this.held;
    this.held = [];
    for (const callback of held) callback();
  }
}

/** Fails the write after `limit` bytes, like a full disk or a broken upload. */
class FailingSink extends Writable {
  private bytes = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    callback(this.bytes > this.limit ? new Error('disk full') : null);
  }
}

/**
 * Comments zlib cannot shrink much (pseudo-random, and more distinct text than its 32 KiB window),
 * so that the sheet XML outgrows every buffer between the writer and the destination.
 */
function noisyRecords(count: number): ShiftRecord[] {
  let seed = 42;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const noise = Array.from({ length: 256 }, () => {
    const chars: string[] = [];
    for (let i = 0; i < 400; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      chars.push(alphabet[seed % 64] ?? '');
    }
    return chars.join('');
  });
  return Array.from({ length: count }, (_, i) =>
    shiftRecord({ id: i + 1, comment: noise[i % noise.length] ?? null }),
  );
}

const rejectedRow = (id: number): RejectedRow => ({
  id,
  reason: 'duration: negative',
  rawJson: `{"id":${id}}`,
});

let tempDir: string;

beforeEach(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'xlsx-writer-test-'));
});

afterEach(async () => {
  vi.useRealTimers();
  await rm(tempDir, { recursive: true, force: true });
});

function writer(sink: Writable, options: Partial<ShiftsWorkbookOptions> = {}): ShiftsWorkbookWriter {
  return new ShiftsWorkbookWriter(sink, {
    createdAt: CREATED_AT,
    creator: 'shift-export test',
    matchRateThreshold: 0.8,
    period: about().period,
    tempDir,
    ...options,
  });
}

describe('the same input', () => {
  const input = () => ({
    shifts: [shiftRecord(), shiftRecord({ id: 2, comment: '😀' })],
    rejected: [rejectedRow(9)],
  });

  it('gives the same bytes, whenever and in whatever time zone it is rendered', async () => {
    const first = await renderWorkbook(input());
    const savedZone = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Kathmandu';
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2031-12-31T23:59:59Z'));
      const second = await renderWorkbook(input());
      process.env.TZ = 'America/Los_Angeles';
      const third = await renderWorkbook(input());
      expect(second.equals(first)).toBe(true);
      expect(third.equals(first)).toBe(true);
    } finally {
      if (savedZone === undefined) delete process.env.TZ;
      else process.env.TZ = savedZone;
    }
  });

  it('gives other bytes for another export time (the time is the export’s, not the clock’s)', async () => {
    const other = await renderWorkbook({
      ...input(),
      options: { createdAt: new Date(Date.UTC(2024, 4, 9)) },
    });
    expect(other.equals(await renderWorkbook(input()))).toBe(false);
  });
});

describe('pacing', () => {
  it('returns a promise every YIELD_EVERY_ROWS rows and nothing in between', async () => {
    const w = writer(new MemorySink());
    const returned: boolean[] = [];
    for (const record of noisyRecords(YIELD_EVERY_ROWS * 3)) {
      const wait = w.addShift(record);
      returned.push(wait !== undefined);
      if (wait) await wait;
    }
    await w.finish(summaries(), about());
    expect(returned.filter(Boolean)).toHaveLength(3);
    expect(returned[YIELD_EVERY_ROWS - 1]).toBe(true);
  });

  it('stops taking rows while the destination is stalled, and completes once it drains', async () => {
    const sink = new HeldSink();
    const w = writer(sink);
    // Enough rows to pass the parallel deflate's blocks (1 MiB of sheet XML each, up to 4 in flight) and
    // the pacer's high-water mark, so that the stall reaches the rows before they run out.
    const records = noisyRecords(20_000);
    let produced = 0;
    let waiting = false;
    const producing = (async () => {
      for (const record of records) {
        const wait = w.addShift(record);
        produced++;
        if (wait) {
          waiting = true;
          await wait;
          waiting = false;
        }
      }
      await w.finish(summaries(), about());
    })();

    await vi.waitFor(
      () => {
        expect(sink.heldWrites).toBeGreaterThan(0);
        expect(w.stats.drainWaits).toBeGreaterThan(0);
        expect(waiting).toBe(true);
      },
      { timeout: 30_000, interval: 5 },
    );
    const producedWhileStalled = produced;
    expect(producedWhileStalled).toBeLessThan(records.length);
    expect(w.stats.bufferedBytes).toBeLessThan(HIGH_WATER_BYTES + 256 * 1024);

    sink.release();
    await producing;
    expect(w.stats.peakBufferedBytes).toBeLessThan(HIGH_WATER_BYTES + 256 * 1024);
    expect(w.stats.shifts).toBe(records.length);
    // A complete zip ends with its end-of-central-directory record (the content is read back elsewhere).
    const bytes = Buffer.concat(sink.chunks);
    expect(bytes.readUInt32LE(bytes.length - 22)).toBe(0x06054b50);
  });
});

describe('rejected rows', () => {
  it('wait in a temp file while shifts stream, which is gone after finish', async () => {
    const w = writer(new MemorySink());
    await w.addRejected(rejectedRow(1));
    w.addShift(shiftRecord());
    await w.addRejected(rejectedRow(2));
    // The file opens asynchronously on the first row.
    await vi.waitFor(async () => expect(await readdir(tempDir)).toHaveLength(1));
    await w.finish(summaries(), about());
    expect(await readdir(tempDir)).toEqual([]);
    expect(w.stats).toMatchObject({ shifts: 1, rejected: 2, shiftSheets: 1 });
  });

  it('create no temp file when there are none', async () => {
    const w = writer(new MemorySink());
    w.addShift(shiftRecord());
    expect(await readdir(tempDir)).toEqual([]);
    await w.finish(summaries(), about());
  });
});

describe('failures', () => {
  it('end the export with the destination’s error and remove the temp file', async () => {
    const w = writer(new FailingSink(64 * 1024));
    const run = async (): Promise<void> => {
      await w.addRejected(rejectedRow(1));
      for (const record of noisyRecords(2000)) {
        const wait = w.addShift(record);
        if (wait) await wait;
      }
      await w.finish(summaries(), about());
    };
    await expect(run()).rejects.toThrow('disk full');
    await w.abort(new Error('cleanup'));
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('treat a destination closed before the end as a failure', async () => {
    const sink = new MemorySink();
    const w = writer(sink);
    w.addShift(shiftRecord());
    sink.destroy();
    await expect(w.finish(summaries(), about())).rejects.toMatchObject({ code: 'XLSX_WRITE_FAILED' });
  });
});

describe('abort', () => {
  it('destroys the destination with the error, removes the temp file and closes the writer', async () => {
    const sink = new MemorySink();
    const w = writer(sink);
    let finished = false;
    sink.on('error', () => undefined);
    sink.on('finish', () => (finished = true));
    const closed = new Promise((resolve) => sink.once('close', resolve));
    await w.addRejected(rejectedRow(1));
    w.addShift(shiftRecord());
    const reason = new Error('upstream failed');
    await w.abort(reason);
    await closed;
    expect(sink.errored).toBe(reason);
    // Never a normal end: a destination must not publish what was written so far.
    expect(finished).toBe(false);
    expect(await readdir(tempDir)).toEqual([]);
    expect(() => w.addShift(shiftRecord())).toThrow(ShiftExportError);
    expect(() => w.addShift(shiftRecord())).toThrow(/after the workbook was finished or aborted/);
    await expect(w.finish(summaries(), about())).rejects.toMatchObject({ code: 'XLSX_WRITER_CLOSED' });
    await w.abort(reason);
  });

  it('does nothing after a finished workbook', async () => {
    const sink = new MemorySink();
    const w = writer(sink);
    await w.finish(summaries(), about());
    await w.abort(new Error('too late'));
    expect(sink.errored).toBeNull();
    expect(await readWorkbook(sink.bytes)).toBeTruthy();
  });
});

describe('options', () => {
  it('are checked when the writer is made', () => {
    expect(() => writer(new MemorySink(), { sheetRowLimit: 0 })).toThrow(/sheetRowLimit/);
    expect(() => writer(new MemorySink(), { sheetRowLimit: 2_000_000 })).toThrow(/sheetRowLimit/);
    expect(() => writer(new MemorySink(), { matchRateThreshold: 80 })).toThrow(/ratio from 0 to 1/);
    expect(() => writer(new MemorySink(), { createdAt: new Date(Number.NaN) })).toThrow(/createdAt/);
  });
});
