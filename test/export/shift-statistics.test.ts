// The statistics' batches (shift-statistics.ts): rows packed from worked cuts and counted from the
// packed batch give the same summaries as the rows counted straight from their cuts, however the
// rows fall into cuts and batches; a batch carries each label text once for each cut it draws on.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FACT, FACTS, LABEL, LABELS, type WorkedCut } from '../../src/export/cut-work.js';
import {
  addBatch,
  emptyAggregateShift,
  LocalStatistics,
  StatisticsBatchPacker,
  STAT_LABELS,
  type StatisticsBatch,
} from '../../src/export/shift-statistics.js';
import { ShiftAggregator } from '../../src/pipeline/aggregate.js';
import { divisionDirectory } from '../../src/pipeline/enrich.js';

const name = fc.constantFrom('alpha', 'Alpha', 'beta', 'Émile', 'zeta', 'Ярославль', '');
const match = fc.constantFrom(1, 0, -1);
const distance = fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.constant(Number.NaN));

/** A row as a cut holds it: facts, and its six statistics' label texts (null: none). */
const row = fc.record({
  businessDay: fc.integer({ min: 19_800, max: 19_804 }),
  divisionId: fc.integer({ min: 1, max: 3 }),
  regionId: fc.integer({ min: 1, max: 5 }),
  shopId: fc.integer({ min: 1, max: 8 }),
  userId: fc.integer({ min: 1, max: 12 }),
  duration: fc.integer({ min: 0, max: 28_800 }),
  startMatch: match,
  finishMatch: match,
  startDistance: distance,
  finishDistance: distance,
  autoFinished: fc.constantFrom(0, 1),
  texts: fc.tuple(name, name, name, fc.option(name, { nil: null }), name, name),
  /** Exported (else a repeat the export's thread dropped). */
  exported: fc.boolean(),
});
type Row = typeof row extends fc.Arbitrary<infer T> ? T : never;

/** A worked cut of `rows`, its texts interned in its strings, a text's index shared by its rows. */
function cutOf(rows: readonly Row[]): WorkedCut {
  const facts = new Float64Array(rows.length * FACTS);
  const labels = new Int32Array(rows.length * LABELS).fill(-1);
  const strings: string[] = [];
  const index = new Map<string, number>();
  rows.forEach((r, k) => {
    const f = k * FACTS;
    facts[f + FACT.id] = k;
    facts[f + FACT.businessDay] = r.businessDay;
    facts[f + FACT.divisionId] = r.divisionId;
    facts[f + FACT.regionId] = r.regionId;
    facts[f + FACT.shopId] = r.shopId;
    facts[f + FACT.userId] = r.userId;
    facts[f + FACT.duration] = r.duration;
    facts[f + FACT.startMatch] = r.startMatch;
    facts[f + FACT.finishMatch] = r.finishMatch;
    facts[f + FACT.startDistance] = r.startDistance;
    facts[f + FACT.finishDistance] = r.finishDistance;
    facts[f + FACT.autoFinished] = r.autoFinished;
    r.texts.forEach((text, i) => {
      if (text === null) return;
      let at = index.get(text);
      if (at === undefined) {
        at = strings.push(text) - 1;
        index.set(text, at);
      }
      labels[k * LABELS + LABEL.divisionName + i] = at;
    });
  });
  return { facts, labels, strings } as unknown as WorkedCut;
}

describe('the statistics of packed batches', () => {
  it('are those of the rows counted from their cuts, however rows fall into cuts and batches (property)', async () => {
    const divisions = divisionDirectory([]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { maxLength: 300 }),
        async (cuts, batchEnds) => {
          const local = new LocalStatistics(divisions, undefined);
          const packed = new ShiftAggregator(divisions);
          const packer = new StatisticsBatchPacker();
          const into = emptyAggregateShift();
          const batches: StatisticsBatch[] = [];
          /** Per batch: its rows' texts, each with the cut it came from. */
          const drawn: Set<string>[] = [new Set()];
          let step = 0;
          cuts.forEach((rows, c) => {
            const cut = cutOf(rows);
            rows.forEach((r, k) => {
              if (!r.exported) return;
              local.add(cut, k);
              packer.add(cut, k);
              for (const text of r.texts) if (text !== null) drawn.at(-1)!.add(`${c}:${text}`);
              if (batchEnds[step++ % Math.max(1, batchEnds.length)] === true) {
                batches.push(packer.take());
                drawn.push(new Set());
              }
            });
          });
          batches.push(packer.take());
          for (const [b, batch] of batches.entries()) {
            expect(batch.strings.length).toBe(drawn[b]!.size);
            expect(batch.facts.length).toBe(batch.rows * FACTS);
            expect(batch.labels.length).toBe(batch.rows * STAT_LABELS);
            addBatch(packed, into, batch);
          }
          const expected = await local.finish();
          const actual = packed.finish();
          expect(actual.overall).toEqual(expected.overall);
          expect(actual.divisions).toEqual(expected.divisions);
          expect(actual.days).toEqual(expected.days);
          expect(actual.regions).toEqual(expected.regions);
          expect([...actual.shops]).toEqual([...expected.shops]);
          expect([...actual.users]).toEqual([...expected.users]);
        },
      ),
    );
  });
});
