import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import { QUALITY_FLAGS } from '../../src/domain/shift-record.js';
import { INVALID_UTF8_FLAG, TEXT_REPLACED_FLAG } from '../../src/pipeline/quality-flags.js';

// The About sheet lists QUALITY_FLAGS and the quality_flags column names them: an analyst who
// meets a flag in the data must find what it means in the workbook.
describe('the documented quality flags', () => {
  it('name every flag the pipeline writes, in the order it writes them', () => {
    expect(Object.keys(QUALITY_FLAGS)).toEqual([
      'duration_mismatch',
      'location_out_of_range',
      'invalid_<field>',
      INVALID_UTF8_FLAG,
      TEXT_REPLACED_FLAG,
    ]);
  });

  it('are all named in the description of the quality_flags column', () => {
    const column = SHIFT_COLUMNS.find((c) => c.name === 'quality_flags');
    for (const flag of Object.keys(QUALITY_FLAGS)) expect(column?.description).toContain(flag);
  });
});
