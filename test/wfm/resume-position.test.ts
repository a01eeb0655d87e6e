import { describe, expect, it } from 'vitest';
import { RawRowsBuilder, type RawRows } from '../../src/domain/raw-rows.js';
import { JsonArrayScanner } from '../../src/wfm/json-array-scanner.js';
import { idsOf, ResumePositionKeeper, type Position, type RowRange } from '../../src/wfm/resume-position.js';

const CONTEXT = { method: 'GET' as const, path: '/v1/connector/rpc/wfm_timers', attempts: 1 };

/** The rows of the ranges, joined as the reader joins them. */
function joined(ranges: readonly RowRange<RawRows>[]): RawRows {
  const builder = new RawRowsBuilder();
  for (const { batch, from, to } of ranges) builder.append(batch, from, to);
  return builder.take();
}

/** The rows' texts, read from each batch the emitter handed out. */
function textsOf(batches: readonly RawRows[]): string[] {
  return batches.flatMap((b) => b.map((_, i) => b.texts?.textOf(i) ?? 'no text'));
}

describe('ResumePositionKeeper', () => {
  it('keeps the text of rows it held back for lack of a readable id', () => {
    // Ids past 2^53 are not readable: those rows wait for the next readable id.
    const rows = ['{"id":1}', '{"id":9007199254740993}', '{"id": 9007199254740995 }', '{"id":2}', '{"x":0}'];
    const scanner = new JsonArrayScanner({ maxBodyBytes: 1e9, maxRowBytes: 1e6, batchBytes: 1 });
    const position: Position = {
      lastId: undefined,
      ascending: true,
      blind: false,
      pageStart: 0,
      pageDone: 0,
    };
    const emitter = new ResumePositionKeeper<RawRows>('none', {}, position, CONTEXT);
    const accept = (batch: RawRows): RawRows => joined(emitter.accept(idsOf(batch), batch));
    const out: RawRows[] = [];
    out.push(accept(scanner.push(Buffer.from('['))));
    rows.forEach((row, i) => out.push(accept(scanner.push(Buffer.from(i === 0 ? row : `,${row}`)))));
    out.push(accept(scanner.push(Buffer.from(']'))), accept(scanner.end()));
    expect(textsOf(out)).toEqual(rows.slice(0, 4));
    expect(position.lastId).toBe(2);
    expect(emitter.heldRows).toBe(1);
    expect(textsOf([joined(emitter.finish(5, undefined))])).toEqual(rows.slice(4));
  });
});
