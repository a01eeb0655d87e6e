// The workbook rendered in a worker thread writes exactly the in-thread writer's bytes, and fails
// and aborts the way the export expects. The thread runs the compiled entry in dist/ (`npm test`
// builds it first).

import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RejectedRow } from '../../src/domain/rejected-row.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { BATCH_ROWS, ThreadedWorkbook, WINDOW_BATCHES } from '../../src/export/threaded-workbook.js';
import { openWorkbook } from '../../src/export/workbook-output.js';
import { ShiftsWorkbookWriter } from '../../src/render/xlsx/shifts-workbook-writer.js';
import { about, shiftRecord, summaries } from '../render/xlsx/shift-fixtures.js';
import { CREATED_AT, MemorySink, renderWorkbook } from '../render/xlsx/workbook-io.js';

const WORKER_URL = new URL('../../dist/src/export/workbook-thread.js', import.meta.url);
const OPTIONS = { createdAt: CREATED_AT, creator: 'shift-export test', matchRateThreshold: 0.8 };

if (!existsSync(WORKER_URL))
  throw new Error('dist/ is not built: run `npm run build` (npm test does) before this test');

function manyShifts(count: number): ShiftRecord[] {
  const comments = [null, ' late ', '=SUM(A1)', 'Ünïcödé ✓ 😀', 'two\nlines', '\ttab'];
  return Array.from({ length: count }, (_, i) =>
    shiftRecord(
      {
        id: 5000 + i,
        comment: comments[i % comments.length] ?? null,
        duration: 28_800 + i,
        start_location_distance: i % 7 === 0 ? null : i * 1.5,
      },
      {
        qualityFlags: i % 11 === 0 ? 'duration_mismatch' : '',
        divisionExternalId: i % 5 === 0 ? null : 'DIV-N',
      },
    ),
  );
}

const rejectedRow = (id: number): RejectedRow => ({
  id,
  reason: 'start_time: not a date',
  rawJson: `{"id":${id},"start_time":"x"}`,
});

async function renderThreaded(
  shifts: readonly ShiftRecord[],
  rejected: readonly RejectedRow[],
  sink = new MemorySink(),
): Promise<Buffer> {
  const workbook = new ThreadedWorkbook(sink, OPTIONS, WORKER_URL);
  for (let i = 0; i < Math.max(shifts.length, rejected.length); i++) {
    const shift = shifts[i];
    if (shift !== undefined) {
      const wait = workbook.addShift(shift);
      if (wait) await wait;
    }
    const row = rejected[i];
    if (row !== undefined) {
      const wait = workbook.addRejected(row);
      if (wait) await wait;
    }
  }
  await workbook.finish(summaries(), about());
  return sink.bytes;
}

describe('ThreadedWorkbook', () => {
  it('writes byte for byte what the in-thread writer writes, over many batches and a full window', async () => {
    const shifts = manyShifts(BATCH_ROWS * (WINDOW_BATCHES + 2) + 17);
    const rejected = [rejectedRow(1), rejectedRow(2), rejectedRow(3)];
    const threaded = await renderThreaded(shifts, rejected);
    const inThread = await renderWorkbook({ shifts, rejected });
    expect(threaded.length).toBeGreaterThan(10_000);
    expect(threaded.equals(inThread)).toBe(true);
  });

  it('is what openWorkbook gives for renderIn thread; the in-thread writer is the default', async () => {
    const threaded = openWorkbook(new MemorySink(), OPTIONS, { renderIn: 'thread', workerUrl: WORKER_URL });
    expect(threaded).toBeInstanceOf(ThreadedWorkbook);
    await threaded.abort(new Error('not needed'));
    expect(openWorkbook(new MemorySink(), OPTIONS)).toBeInstanceOf(ShiftsWorkbookWriter);
  });

  it('refuses renderIn thread when the thread entry is missing', () => {
    const missing = new URL('./no-such-thread.js', WORKER_URL);
    expect(() => openWorkbook(new MemorySink(), OPTIONS, { renderIn: 'thread', workerUrl: missing })).toThrow(
      /is missing/,
    );
  });

  it('fails with a retryable XLSX_WRITE_FAILED when the destination fails, and destroys it on abort', async () => {
    const sink = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    sink.on('error', () => undefined);
    const workbook = new ThreadedWorkbook(sink, OPTIONS, WORKER_URL);
    const failure = (async () => {
      for (const shift of manyShifts(BATCH_ROWS * 3)) {
        const wait = workbook.addShift(shift);
        if (wait) await wait;
      }
      await workbook.finish(summaries(), about());
    })();
    await expect(failure).rejects.toMatchObject({ code: 'XLSX_WRITE_FAILED', retryable: true });
    await workbook.abort(new Error('export failed'));
    expect(sink.destroyed).toBe(true);
  });

  it('refuses rows after finish', async () => {
    const workbook = new ThreadedWorkbook(new MemorySink(), OPTIONS, WORKER_URL);
    await workbook.finish(summaries(), about());
    expect(() => workbook.addShift(shiftRecord())).toThrow(/after the workbook was finished/);
  });
});
