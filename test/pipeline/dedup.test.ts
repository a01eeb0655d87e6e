import { describe, expect, it } from 'vitest';
import { DuplicateFilter } from '../../src/pipeline/dedup.js';
import { recordOf } from './support/shift-records.js';
import { shiftRow } from './support/shift-rows.js';

describe('dedup', () => {
  it('lets the first sighting of an id through and counts every later one', () => {
    const filter = new DuplicateFilter();
    const ids = [7, 8, 7, -7, 8, 2 ** 53 - 1, 2 ** 53 - 1];
    expect(ids.map((id) => filter.admits(recordOf(shiftRow({ id }))))).toEqual([
      true,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(filter.duplicates).toBe(3);
  });
});
