import { describe, expect, it } from 'vitest';
import { RowHasher } from '../../src/changes/row-hash.js';
import type { CellValue } from '../../src/domain/column.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { syntheticShiftRecords } from '../render/csv/synthetic-shift-records.js';

type Row = readonly CellValue[];

function hasherOf(width: number): RowHasher<Row> {
  return new RowHasher(Array.from({ length: width }, (_, i) => ({ value: (row: Row) => row[i] ?? null })));
}

function hashOf(row: Row): string {
  const target = Buffer.alloc(8);
  hasherOf(row.length).hashInto(row, target, 0);
  return target.toString('hex');
}

describe('row hash', () => {
  it('agrees on equal rows and tells apart rows that differ in one code unit or one bit', () => {
    const base: Row = [1001368, 'fedorova.o', 'Якутск, ТРК «Гринвич»', 39.397, true, null, -300];
    const seen = new Set<string>();
    const variants = new Set<string>();
    base.forEach((value, column) => {
      const others: CellValue[] = [];
      if (typeof value === 'string') {
        for (let i = 0; i < value.length; i++) {
          for (const delta of [1, 2, 128]) {
            const unit = (value.charCodeAt(i) + delta) & 0xffff;
            others.push(value.slice(0, i) + String.fromCharCode(unit) + value.slice(i + 1));
          }
        }
      } else if (typeof value === 'number') {
        others.push(value + 1, -value, value * 2 ** -40 + value, Number.MIN_VALUE);
      } else {
        others.push(null, true, false, '', 0);
      }
      for (const other of others) {
        if (other === value) continue;
        const row = [...base];
        row[column] = other;
        seen.add(hashOf(row));
        variants.add(JSON.stringify(row));
      }
    });
    expect(hashOf([...base])).toBe(hashOf(base));
    expect(seen.has(hashOf(base))).toBe(false);
    expect(variants.size).toBeGreaterThan(100);
    expect(seen.size).toBe(variants.size);
  });

  it('keeps cells apart: where a text ends, and null, empty text, 0 and false are all different', () => {
    expect(hashOf(['ab', 'c'])).not.toBe(hashOf(['a', 'bc']));
    const kinds = [null, '', 0, false, true, '0'].map((v) => hashOf([v, 'x']));
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it('hashes -0 as 0, as every formatter prints it', () => {
    expect(hashOf([-0])).toBe(hashOf([0]));
  });

  it('hashes a shift the same as the release that introduced row-hashes.bin SXRH0002', () => {
    // Changing this hash means a new format: bump ROW_HASHES_MAGIC and refuse the old one.
    const record = syntheticShiftRecords(1, 7)[0] as ShiftRecord;
    const target = Buffer.alloc(8);
    new RowHasher(SHIFT_COLUMNS).hashInto(record, target, 0);
    expect(target.toString('hex')).toBe('a0f1fcc7273abe2a');
  });
});
