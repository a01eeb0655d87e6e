import { describe, expect, it } from 'vitest';
import type { RawRows } from '../../src/domain/raw-rows.js';
import { JsonArrayScanner } from '../../src/wfm/json-array-scanner.js';
import { ResumePositionKeeper, type Position } from '../../src/wfm/resume-position.js';

const CONTEXT = { method: 'GET' as const, path: '/v1/connector/rpc/wfm_timers', attempts: 1 };

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
    const emitter = new ResumePositionKeeper('none', {}, position, CONTEXT);
    const out: RawRows[] = [];
    out.push(emitter.accept(scanner.push(Buffer.from('['))));
    rows.forEach((row, i) => out.push(emitter.accept(scanner.push(Buffer.from(i === 0 ? row : `,${row}`)))));
    out.push(emitter.accept(scanner.push(Buffer.from(']'))), emitter.accept(scanner.end()));
    expect(textsOf(out)).toEqual(rows.slice(0, 4));
    expect(position.lastId).toBe(2);
    expect(textsOf([emitter.finish(5, undefined)])).toEqual(rows.slice(4));
  });
});
