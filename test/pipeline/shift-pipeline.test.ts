import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from 'wfm-contract/civil-time';
import type { DivisionInfo } from '../../src/pipeline/enrich.js';
import { ShiftPipeline, type BatchResult } from '../../src/pipeline/shift-pipeline.js';
import { shiftRow, type RawRow } from './support/shift-rows.js';

const MAY = { from: '2024-05-01', to: '2024-05-31' };
const DIVISIONS = new Map<number, DivisionInfo>([
  [7, { name: 'North', externalId: 'N-07', managers: 'Olga Petrova <op>', textReplaced: false }],
]);

/** A row starting on local day `day` of May 2024 (0 = 1 May; negative or > 30 is outside). */
function rowOn(day: number, patch: RawRow = {}): RawRow {
  const localStart = Date.UTC(2024, 4, 1 + day, 9) / 1000;
  const utc = localStart - 180 * 60;
  return shiftRow({
    start_time: formatDateTime(utc, 'T'),
    finish_time: formatDateTime(utc + 28_800, 'T'),
    ...patch,
  });
}

/** The batches' results, one after the other. */
function joined(results: readonly BatchResult[]): BatchResult {
  return {
    shifts: results.flatMap((result) => result.shifts),
    rejected: results.flatMap((result) => result.rejected),
  };
}

type Kind = 'clean' | 'flagged' | 'rejected';
const generatedRow = fc.record({
  id: fc.integer({ min: 1, max: 40 }),
  day: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(-2, -1, 31, 45)),
  kind: fc.constantFrom<Kind>('clean', 'clean', 'clean', 'flagged', 'rejected'),
});

describe('shift pipeline', () => {
  it('accounts for every fetched row exactly once, batch by batch (property)', () => {
    fc.assert(
      fc.property(
        fc.array(generatedRow, { maxLength: 200, size: 'max' }),
        fc.integer({ min: 1, max: 50 }),
        (rows, batchSize) => {
          const raw = rows.map(({ id, day, kind }) =>
            rowOn(day, {
              id,
              ...(kind === 'flagged' ? { comment: 42 } : kind === 'rejected' ? { duration: -1 } : {}),
            }),
          );
          const pipeline = new ShiftPipeline({ period: MAY, divisions: DIVISIONS });
          const batches: BatchResult[] = [];
          for (let i = 0; i < raw.length; i += batchSize)
            batches.push(pipeline.processBatch(raw.slice(i, i + batchSize)));
          const out = joined(batches);

          const seen = new Set<number>();
          const expected = {
            fetched: 0,
            exported: 0,
            rejected: 0,
            duplicates: 0,
            outside_window: 0,
            flagged: 0,
          };
          const exportedIds: number[] = [];
          for (const { id, day, kind } of rows) {
            expected.fetched++;
            if (kind === 'rejected') expected.rejected++;
            else if (day < 0 || day > 30) expected.outside_window++;
            else if (seen.has(id)) expected.duplicates++;
            else {
              seen.add(id);
              exportedIds.push(id);
              expected.exported++;
              if (kind === 'flagged') expected.flagged++;
            }
          }
          const counts = pipeline.counts;
          expect(counts).toEqual(expected);
          expect(counts.fetched).toBe(
            counts.exported + counts.rejected + counts.duplicates + counts.outside_window,
          );
          expect(out.shifts.map((r) => r.shift.id)).toEqual(exportedIds);
          expect(out.rejected).toHaveLength(expected.rejected);
          expect(pipeline.finish().overall.shifts).toBe(expected.exported);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns enriched records and rejected rows in arrival order', () => {
    const pipeline = new ShiftPipeline({ period: MAY, divisions: DIVISIONS });
    const out = pipeline.processBatch([
      rowOn(0, { id: 1 }),
      'garbage',
      rowOn(1, { id: 2, division_id: 8 }),
      7,
    ]);
    expect(out.shifts.map((r) => [r.shift.id, r.divisionExternalId, r.divisionManagers])).toEqual([
      [1, 'N-07', 'Olga Petrova <op>'],
      [2, null, null],
    ]);
    expect(out.rejected).toEqual([
      { id: null, reason: 'row: Invalid input: expected object, received string', rawJson: '"garbage"' },
      { id: null, reason: 'row: Invalid input: expected object, received number', rawJson: '7' },
    ]);
  });

  it('counts a duplicate outside the window once, as outside the window', () => {
    const pipeline = new ShiftPipeline({ period: MAY, divisions: new Map() });
    pipeline.processBatch([
      rowOn(-1, { id: 5 }),
      rowOn(-1, { id: 5 }),
      rowOn(3, { id: 6 }),
      rowOn(3, { id: 6 }),
    ]);
    expect(pipeline.counts).toMatchObject({ fetched: 4, exported: 1, outside_window: 2, duplicates: 1 });
  });

  it('exports a later valid copy of an id whose first copy was rejected', () => {
    const pipeline = new ShiftPipeline({ period: MAY, divisions: new Map() });
    const out = pipeline.processBatch([rowOn(2, { id: 9, duration: -1 }), rowOn(2, { id: 9 })]);
    expect(pipeline.counts).toMatchObject({ rejected: 1, exported: 1, duplicates: 0 });
    expect(out.rejected[0]?.id).toBe(9);
  });

  it('lists metadata divisions in the summaries even when nothing was exported', () => {
    const pipeline = new ShiftPipeline({ period: MAY, divisions: DIVISIONS });
    pipeline.processBatch([]);
    expect(pipeline.finish().divisions.map((d) => [d.divisionId, d.divisionName, d.stats.shifts])).toEqual([
      [7, 'North', 0],
    ]);
    expect(pipeline.counts.fetched).toBe(0);
  });
});
