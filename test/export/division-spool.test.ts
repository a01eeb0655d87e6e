import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDateTime } from 'wfm-contract/civil-time';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { DivisionSpool, SpoolLineEncoder, spoolLine, spoolRecords } from '../../src/export/division-spool.js';
import type { DivisionDirectory } from '../../src/pipeline/enrich.js';
import { ShiftPipeline } from '../../src/pipeline/shift-pipeline.js';
import { TempFolder } from '../../src/temp-file.js';
import { shiftRow } from '../pipeline/support/shift-rows.js';

const MAY = { from: '2024-05-01', to: '2024-05-31' };
const NO_DIVISIONS: DivisionDirectory = new Map();

let dir: string;
let temp: TempFolder;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'division-spool-'));
  temp = new TempFolder(dir);
});

afterEach(() => {
  temp.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Exported records of the given divisions, one per entry, with texts that test the round trip. */
function records(
  rows: readonly { division: number; comment: string | null }[],
  divisions: DivisionDirectory = NO_DIVISIONS,
): ShiftRecord[] {
  const utc = Date.UTC(2024, 4, 10, 6) / 1000;
  const pipeline = new ShiftPipeline({ period: MAY, divisions });
  return [
    ...pipeline.processBatch(
      rows.map((row, i) =>
        shiftRow({
          id: i + 1,
          division_id: row.division,
          comment: row.comment,
          start_time: formatDateTime(utc, 'T'),
          finish_time: formatDateTime(utc + 28_800, 'T'),
          start_location_lat: 55.75 + i / 1e7,
        }),
      ),
    ).shifts,
  ];
}

function readAll(spool: DivisionSpool): Map<number, ShiftRecord[]> {
  const out = new Map<number, ShiftRecord[]>();
  for (const division of spool.divisions()) out.set(division.divisionId, [...spool.read(division)].flat());
  return out;
}

describe('division spool', () => {
  it("keeps a record as its values, without keys, and reads it back equal, in the export's shape", () => {
    const directory: DivisionDirectory = new Map([
      [3, { name: 'Three', externalId: 'EXT-3', managers: 'Ann Lee <ann@x.example>', textReplaced: false }],
    ]);
    const [known, unknown] = records(
      [
        { division: 3, comment: 'a "quoted"\nline' },
        { division: 4, comment: null },
      ],
      directory,
    );
    expect(known?.divisionManagers).toBe('Ann Lee <ann@x.example>');
    for (const record of [known!, unknown!]) {
      const line = spoolLine(record);
      expect(line).not.toContain('"user_login"');
      // The division's metadata comes from the directory, not from every line.
      expect(line).not.toContain('EXT-3');
      expect(line.length).toBeLessThan(JSON.stringify(record).length * 0.7);
      const [back] = spoolRecords(`${line}\n`, directory);
      expect(back).toStrictEqual(record);
      // The same keys in the same order: code that reads records sees the shape it was compiled for.
      expect(Object.keys(back!)).toEqual(Object.keys(record));
      expect(Object.keys(back!.shift)).toEqual(Object.keys(record.shift));
    }
  });

  it("reads a division's replaced-text flag back once, as the record had it", () => {
    const directory: DivisionDirectory = new Map([
      [5, { name: 'Five', externalId: 'EXT-\uFFFD', managers: null, textReplaced: true }],
    ]);
    const [record] = records([{ division: 5, comment: null }], directory);
    expect(record?.qualityFlags).toBe('text_replaced');
    const [back] = spoolRecords(`${spoolLine(record!)}\n`, directory);
    expect(back).toStrictEqual(record);
  });

  it('gives each division its records back equal and in order, whatever their texts (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            division: fc.integer({ min: 1, max: 5 }),
            comment: fc.option(fc.string({ unit: 'binary', maxLength: 40 })),
          }),
          { maxLength: 60 },
        ),
        (rows) => {
          const input = records(rows);
          const spool = new DivisionSpool(temp, NO_DIVISIONS);
          for (const record of input) spool.add(record);
          const back = readAll(spool);
          const ids = [...new Set(input.map((r) => r.shift.division_id))].sort((a, b) => a - b);
          expect([...back.keys()]).toEqual(ids);
          for (const id of ids) {
            const own = input.filter((r) => r.shift.division_id === id);
            expect(back.get(id)).toEqual(own);
            expect(spool.divisions().find((d) => d.divisionId === id)?.shifts).toBe(own.length);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('takes lines rendered elsewhere, in pieces of any size, as it takes the records (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            division: fc.integer({ min: 1, max: 4 }),
            comment: fc.option(fc.string({ unit: 'binary', maxLength: 3000 })),
          }),
          { maxLength: 80 },
        ),
        fc.integer({ min: 1, max: 30 }),
        (rows, piece) => {
          const input = records(rows);
          const byRecord = new DivisionSpool(temp, NO_DIVISIONS);
          for (const record of input) byRecord.add(record);
          const byLines = new DivisionSpool(temp, NO_DIVISIONS);
          const encoder = new SpoolLineEncoder();
          for (let at = 0; at < input.length; at += piece) {
            const part = input.slice(at, at + piece);
            const ends = new Int32Array(part.length);
            const lines = encoder.encodeAll(part, ends);
            byLines.addLines(
              lines,
              ends,
              Float64Array.from(part, (r) => r.shift.division_id),
            );
          }
          expect(readAll(byLines)).toEqual(readAll(byRecord));
          expect(byLines.divisions().map((d) => d.shifts)).toEqual(byRecord.divisions().map((d) => d.shifts));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('appends full blocks as it goes and keeps one temp file for every division', () => {
    const spool = new DivisionSpool(temp, NO_DIVISIONS);
    const comment = 'x'.repeat(2000);
    const input = records(Array.from({ length: 300 }, (_, i) => ({ division: (i % 3) + 1, comment })));
    for (const record of input) spool.add(record);
    // ~2 KB a record, 100 per division: each division has filled blocks before it is read.
    expect(spool.divisions().every((d) => d.blocks.length >= 2 && d.used < 64 * 1024)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
    const back = readAll(spool);
    expect(back.get(2)).toEqual(input.filter((r) => r.shift.division_id === 2));
  });

  it('cuts a division into runs of whole blocks of at most the bytes asked, a larger block alone', () => {
    const spool = new DivisionSpool(temp, NO_DIVISIONS);
    // Records of 1 to ~9 KB, so that blocks end short of full by different amounts.
    const input = records(
      Array.from({ length: 400 }, (_, i) => ({ division: 1, comment: 'y'.repeat((i * 997) % 9000) })),
    );
    for (const record of input) spool.add(record);
    const [division] = spool.divisions();
    if (division === undefined) throw new Error('no division was spooled');
    const blockBytes = (b: number): number => division.blocks[b * 2 + 1] ?? 0;
    for (const bytes of [1, 30_000, 60 * 1024, 100_000, 10_000_000]) {
      const runs = spool.runs(division, bytes);
      // Every block once, in order.
      expect(runs.map((run) => [run.first, run.end]).flat()).toEqual(
        runs.flatMap((_, i) => [i === 0 ? 0 : (runs[i - 1]?.end ?? -1), runs[i]?.end]),
      );
      expect(runs.at(-1)?.end).toBe(division.blocks.length / 2);
      for (const { first, end } of runs) {
        let size = 0;
        for (let b = first; b < end; b++) size += blockBytes(b);
        if (end - first > 1) expect(size).toBeLessThanOrEqual(bytes);
        // Not cut short: the next block would not have fitted.
        if (end < division.blocks.length / 2) expect(size + blockBytes(end)).toBeGreaterThan(bytes);
      }
    }
  });
});
