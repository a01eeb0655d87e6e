// The heap the run merges take their next record from: it must give items back in order, whatever
// the mix of push, pop and replaceTop.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../src/pipeline/min-heap.js';

describe('MinHeap', () => {
  it('gives back every item in ascending order, with pops and top replacements between pushes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: -50, max: 50 }),
            fc.constant('pop' as const),
            fc.constant('replace' as const),
          ),
        ),
        (steps) => {
          const heap = new MinHeap<number>((a, b) => a < b);
          const model: number[] = [];
          let next = 1_000;
          for (const step of steps) {
            if (step === 'pop') {
              model.sort((a, b) => a - b);
              expect(heap.pop()).toBe(model.shift());
            } else if (step === 'replace') {
              if (heap.size === 0) continue;
              model.sort((a, b) => a - b);
              expect(heap.peek()).toBe(model[0]);
              // As a merge does: the run's next item, never less than the one it replaces.
              model[0] = next;
              heap.replaceTop(next++);
            } else {
              heap.push(step);
              model.push(step);
            }
            expect(heap.size).toBe(model.length);
          }
          const drained: number[] = [];
          for (let item = heap.pop(); item !== undefined; item = heap.pop()) drained.push(item);
          expect(drained).toEqual(model.sort((a, b) => a - b));
        },
      ),
    );
  });
});
