// The Shifts sheet's shared texts: indices given at first sight, a bounded table whose refusals
// last (the same texts are shared whichever way the rows are rendered), and a cut's texts given
// their indices in the order its written rows hold them.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cutTextIds,
  KnownTextIds,
  rowTextIds,
  UNSEEN,
  SHARED_TEXT_COLUMN_NAMES,
  SharedTexts,
  UnlabelledTextError,
  type SharedTextLimits,
} from '../../../src/render/xlsx/shared-texts.js';

function table(limits?: SharedTextLimits): { texts: SharedTexts; added: string[] } {
  const added: string[] = [];
  return { texts: new SharedTexts({ add: (text) => added.push(text) - 1 }, limits), added };
}

const COLUMNS = SHARED_TEXT_COLUMN_NAMES.length;

describe('SharedTexts', () => {
  it('gives a text its index at first sight, and the same index after', () => {
    const { texts, added } = table();
    expect([texts.idOf('North'), texts.idOf('South'), texts.idOf('North')]).toEqual([0, 1, 0]);
    expect(added).toEqual(['North', 'South']);
    expect(texts.size).toBe(2);
  });

  it('keeps a text inline past its bounds: too many texts, too many characters, too long a text', () => {
    const { texts, added } = table({ texts: 3, chars: 12, longest: 6 });
    expect(texts.idOf('abcdefg')).toBe(-1); // longer than 6
    expect(texts.idOf('abcde')).toBe(0);
    expect(texts.idOf('fghij')).toBe(1);
    expect(texts.idOf('klm')).toBe(-1); // 13 characters in all
    expect(texts.idOf('kl')).toBe(2);
    expect(texts.idOf('x')).toBe(-1); // a fourth text
    expect(texts.idOf('abcde')).toBe(0);
    expect(added).toEqual(['abcde', 'fghij', 'kl']);
  });

  it('refuses a text for good: asking once or every time gives the same table (property)', () => {
    const text = fc.string({ maxLength: 6 });
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 8 }), { maxLength: 30 }), (cuts) => {
        const limits = { texts: 10, chars: 30, longest: 5 };
        // Every occurrence asked, as the workbook writing rows itself does...
        const each = table(limits);
        const eachIds = cuts.map((cut) => cut.map((t) => each.texts.idOf(t)));
        // ...and each cut's distinct texts once, in first-sight order, as the export's thread does.
        const once = table(limits);
        const onceIds = cuts.map((cut) => {
          const ids = new Map<string, number>();
          for (const t of cut) if (!ids.has(t)) ids.set(t, once.texts.idOf(t));
          return cut.map((t) => ids.get(t));
        });
        expect(once.added).toEqual(each.added);
        expect(onceIds).toEqual(eachIds);
      }),
    );
  });
});

describe('cutTextIds', () => {
  it("asks a cut's written rows' texts row after row, column after column, and skips the rows not written", () => {
    const strings = ['a', 'b', 'c', 'd'];
    // Three admitted rows, with 2 labels of their own before the shared ones.
    const stride = 2 + COLUMNS;
    const labels = new Int32Array(3 * stride).fill(-1);
    const put = (row: number, column: number, label: number): void => {
      labels[row * stride + 2 + column] = label;
    };
    put(0, 0, 0); // row 0 is not written: 'a' is not asked for
    put(1, 3, 2);
    put(1, 1, 1);
    put(2, 0, 3);
    put(2, 4, 1);
    const asked: string[] = [];
    const ids = cutTextIds(
      { idOf: (text) => asked.push(text) + 99 },
      { labels, stride, offset: 2, strings, from: 0, keep: Uint8Array.from([0, 1, 1]) },
    );
    expect(asked).toEqual(['b', 'c', 'd']);
    expect(Array.from(ids)).toEqual([-2, 100, 101, 102]);
    // On the thread: each written row's cells find their indices through the labels it kept.
    const kept = new Int32Array(3 * COLUMNS).fill(-1);
    for (let row = 0; row < 3; row++)
      kept.set(labels.subarray(row * stride + 2, (row + 1) * stride), row * COLUMNS);
    const rowIds = rowTextIds(kept, ids, 0, Uint8Array.from([0, 1, 1]));
    expect(rowIds.length).toBe(2 * COLUMNS);
    expect(Array.from(rowIds.subarray(0, 5))).toEqual([-1, 100, -1, 101, -1]);
    expect(Array.from(rowIds.subarray(COLUMNS, COLUMNS + 5))).toEqual([102, -1, -1, -1, 100]);
    // A written row whose text was given no index: the labels and the rows disagree.
    expect(() => rowTextIds(kept, ids, 0, Uint8Array.from([1, 1, 1]))).toThrow(UnlabelledTextError);
    // From a later admitted row: row 2 alone.
    expect(Array.from(rowTextIds(kept, ids, 2, Uint8Array.from([1])).subarray(0, 1))).toEqual([102]);
  });
});

/** A cut of one row labelled by `known`: its texts' labels in a shared column each. */
function labelCut(known: KnownTextIds, texts: readonly string[]) {
  known.startCut();
  const labels = new Int32Array(COLUMNS).fill(-1);
  texts.forEach((text, c) => (labels[c] = known.label(text)));
  const { strings, entries, known: remembered } = known.endCut();
  const cut = { labels, stride: COLUMNS, offset: 0, strings, from: 0, keep: Uint8Array.of(1) };
  return { cut, entries, remembered };
}

describe('KnownTextIds', () => {
  it("labels each text once a cut, and gives the export's thread the indices it learnt", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 6 }), {
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 8 }),
        (cuts, bound, remembered) => {
          const limits = { texts: bound, chars: 1_000, longest: 100 };
          const plain = new SharedTexts({ add: nextId() }, limits);
          const table = new SharedTexts({ add: nextId() }, limits);
          const asked: string[] = [];
          const counting = { idOf: (text: string): number => (asked.push(text), table.idOf(text)) };
          const known = new KnownTextIds(remembered);
          for (const texts of cuts) {
            const { cut, entries, remembered: before } = labelCut(known, texts);
            // One label a distinct text, in the order first seen.
            expect(cut.strings).toEqual([...new Set(texts)]);
            const from = asked.length;
            const ids = cutTextIds(counting, { ...cut, known: before }, 7);
            // The same indices as a table asked every text, and no remembered text asked.
            expect(Array.from(ids)).toEqual(Array.from(cutTextIds(plain, cut)));
            for (const text of asked.slice(from)) expect(before.ids[cut.strings.indexOf(text)]).toBe(UNSEEN);
            known.learn(7, entries, ids);
            // Bounded: past the limit, it starts again at the next cut.
            expect(known.size).toBeLessThan(remembered + texts.length + 1);
          }
        },
      ),
    );
  });

  it("forgets another table's indices, and the export's thread ignores a cut's of another table", () => {
    const known = new KnownTextIds();
    const first = labelCut(known, ['x', 'y']);
    known.learn(1, first.entries, Int32Array.of(4, -1));
    const second = labelCut(known, ['y', 'x', 'z']);
    expect(second.remembered).toEqual({ table: 1, ids: Int32Array.of(-1, 4, UNSEEN) });
    const asked: string[] = [];
    const table = { idOf: (text: string): number => asked.push(text) + 10 };
    // Remembered for table 1, asked for table 2: asked again.
    const x = labelCut(known, ['x']);
    expect(Array.from(cutTextIds(table, { ...x.cut, known: x.remembered }, 2))).toEqual([11]);
    expect(asked).toEqual(['x']);
    expect(Array.from(cutTextIds(table, { ...x.cut, known: x.remembered }, 1))).toEqual([4]);
    expect(asked).toEqual(['x']);
    // Told of table 2, it forgets table 1's.
    known.learn(2, labelCut(known, ['z']).entries, Int32Array.of(0));
    expect(labelCut(known, ['x', 'z']).remembered).toEqual({ table: 2, ids: Int32Array.of(UNSEEN, 0) });
  });
});

function nextId(): (text: string) => number {
  let next = 0;
  return () => next++;
}
